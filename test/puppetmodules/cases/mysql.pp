# puppetlabs-mysql, examples/mysql_database.pp
# native: same
# noop: clean
class { 'mysql::server':
  root_password => 'password'
}
mysql::db{ ['test1', 'test2']:
  ensure   => present,
  user     => 'test',
  password => 'secret',
  charset  => 'utf8',
  require  => Class['mysql::server'],
}
