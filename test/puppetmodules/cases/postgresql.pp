# puppetlabs-postgresql, README: a server and a database (globals name the
# version Debian 12 ships, which this module version does not detect)
# native: same
# noop: clean
class { 'postgresql::globals': version => '15' }
class { 'postgresql::server': }
postgresql::server::db { 'mydatabasename':
  user     => 'mydatabaseuser',
  password => postgresql::postgresql_password('mydatabaseuser', 'mypassword'),
}
