# arioch-redis, README
# native: refused /usr/share/puppet/modules/redis/manifests/ulimit.pp:20:35: unsupported by the native engine: the fact 'service_provider', which the native fact gatherer does not know
# noop: svc[redis-server]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
include redis
