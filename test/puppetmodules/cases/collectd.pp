# puppet-collectd, examples/init.pp
# native: refused /usr/share/puppet/modules/collectd/manifests/params.pp:155:28: unsupported by the native engine: the fact 'python_dir', which the native fact gatherer does not know
# noop: svc[collectd]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
# noop: /etc/collectd/collectd.conf: directory /etc/collectd does not exist
include collectd
