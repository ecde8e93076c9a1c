# puppet-archive, examples/init.pp style: download and extract
# native: same
# noop: clean
archive { '/tmp/jta-1.1.jar':
  ensure => present,
  source => 'http://central.maven.org/maven2/javax/transaction/jta/1.1/jta-1.1.jar',
}
