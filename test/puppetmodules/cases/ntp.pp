# puppetlabs-ntp, examples/init.pp
# native: same
# noop: svc[ntp]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
node default {
  notify { 'enduser-before': }
  notify { 'enduser-after': }
  class { 'ntp':
    require => Notify['enduser-before'],
    before  => Notify['enduser-after'],
  }
}
