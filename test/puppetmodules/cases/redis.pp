# arioch-redis, README
# native: same
# noop: svc[redis-server]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
include redis
