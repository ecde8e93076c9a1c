# puppetlabs-inifile, examples/ini_setting.pp
# native: same
# noop: clean
ini_setting { 'sample setting':
  ensure  => present,
  path    => '/tmp/foo.ini',
  section => 'foo',
  setting => 'foosetting',
  value   => 'FOO!',
}
ini_setting { 'sample setting2':
  ensure            => present,
  path              => '/tmp/foo.ini',
  section           => 'bar',
  setting           => 'barsetting',
  value             => 'BAR!',
  key_val_separator => '=',
  require           => Ini_setting['sample setting'],
}
