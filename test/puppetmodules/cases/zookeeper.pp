# deric-zookeeper, README (the realm defaults to the domain fact, which a
# host without a domain lacks)
# native: refused /usr/share/puppet/modules/zookeeper/templates/conf/zoo.cfg.erb:40:90: unsupported by the native engine: Ruby in a template: unexpected =
# noop: clean
class { 'zookeeper':
  realm => 'EXAMPLE.COM',
}
