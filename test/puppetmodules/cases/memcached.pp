# saz-memcached, README
# native: same
# noop: clean
class { 'memcached':
  max_memory => '12%',
}
