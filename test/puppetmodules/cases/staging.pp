# nanliu-staging, README: a file from a local path
# native: same
# noop: clean
staging::file { 'sample.tar.gz':
  source => '/usr/share/doc/puppet/copyright',
}
