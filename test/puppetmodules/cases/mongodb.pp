# puppetlabs-mongodb, README: a server
# native: same
# noop: clean
class { 'mongodb::server':
  port    => 27018,
  verbose => true,
}
