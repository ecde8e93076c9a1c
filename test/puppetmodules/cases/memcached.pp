# saz-memcached, README
# native: refused /usr/share/puppet/modules/memcached/templates/memcached.conf.erb:20:14: unsupported by the native engine: the function memcached::max_memory() from a template
# noop: svc[memcached]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
class { 'memcached':
  max_memory => '12%',
}
