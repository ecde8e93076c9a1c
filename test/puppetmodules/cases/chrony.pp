# aboe-chrony, examples/init.pp
# native: same
# noop: svc[chrony]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
node default {
  notify { 'enduser-before': }
  notify { 'enduser-after': }
  class { 'chrony':
    require => Notify['enduser-before'],
    before  => Notify['enduser-after'],
  }
}
