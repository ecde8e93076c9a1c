# deric-zookeeper, README (the realm defaults to the domain fact, which a
# host without a domain lacks)
# native: same
# noop: clean
class { 'zookeeper':
  realm => 'EXAMPLE.COM',
}
