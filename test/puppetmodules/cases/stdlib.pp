# puppetlabs-stdlib, examples/file_line.pp
# native: same
# noop: clean
file { '/tmp/dansfile':
  ensure => file,
}
-> file_line { 'dans_line':
  line => 'dan is awesome',
  path => '/tmp/dansfile',
}
