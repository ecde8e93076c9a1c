# puppetlabs-mongodb, README: a server
# native: same
# noop: svc[mongodb]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
class { 'mongodb::server':
  port    => 27018,
  verbose => true,
}
