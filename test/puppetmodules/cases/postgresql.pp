# puppetlabs-postgresql, README: a server and a database (globals name the
# version Debian 12 ships, which this module version does not detect)
# native: refused /usr/share/puppet/modules/postgresql/manifests/server/config.pp:94:7: unsupported by the native engine: the function postgresql::postgresql_acls_to_resources_hash() (Ruby code in a module)
# noop: clean
class { 'postgresql::globals': version => '15' }
class { 'postgresql::server': }
postgresql::server::db { 'mydatabasename':
  user     => 'mydatabaseuser',
  password => postgresql::postgresql_password('mydatabaseuser', 'mypassword'),
}
