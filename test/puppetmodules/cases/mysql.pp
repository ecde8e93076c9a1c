# puppetlabs-mysql, examples/mysql_database.pp
# native: same
# noop: svc[mariadb]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
# noop: pippet[Mysql_datadir[/var/lib/mysql]]: error: puppet failed to apply mysql_datadir[/var/lib/mysql]: Puppet: Could not find a suitable provider for mysql_datadir
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
