# puppet-collectd, examples/init.pp
# native: same
# noop: svc[collectd]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
# noop: /etc/collectd/collectd.conf: directory /etc/collectd does not exist
include collectd
