# deric-zookeeper, README (the realm defaults to the domain fact, which a
# host without a domain lacks)
# native: refused /usr/share/puppet/modules/zookeeper/templates/conf/zoo.cfg.erb:40:90: unsupported by the native engine: Ruby in a template: unexpected =
# noop: svc[zookeeper]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
class { 'zookeeper':
  realm => 'EXAMPLE.COM',
}
