# saz-memcached, README
# native: refused /usr/share/puppet/modules/stdlib/types/compat/ipv4.pp:2:37: unsupported by the native engine: the regular expression /^((([0-9](?!\d)|[1-9][0-9](?!\d)|1[0-9]{2}(?!\d)|2[0-4][0-9](?!\d)|25[0-5](?!\d))[.]){3}([0-9](?!\d)|[1-9][0-9](?!\d)|1[0-9]{2}(?!\d)|2[0-4][0-9](?!\d)|25[0-5](?!\d)))(/((([0-9](?!\d)|[1-9][0-9](?!\d)|1[0-9]{2}(?!\d)|2[0-4][0-9](?!\d)|25[0-5](?!\d))[.]){3}([0-9](?!\d)|[1-9][0-9](?!\d)|1[0-9]{2}(?!\d)|2[0-4][0-9](?!\d)|25[0-5](?!\d))|[0-9]+))?$/ (error parsing regexp: invalid or unsupported Perl syntax: `(?!`)
# noop: svc[memcached]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
class { 'memcached':
  max_memory => '12%',
}
