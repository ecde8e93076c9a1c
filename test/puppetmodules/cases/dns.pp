# theforeman-dns, README
# native: same
# noop: svc[bind9]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
include dns
dns::zone { 'example.com': }
