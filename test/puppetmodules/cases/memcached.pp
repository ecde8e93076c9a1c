# saz-memcached, README
# native: same
# noop: svc[memcached]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
class { 'memcached':
  max_memory => '12%',
}
