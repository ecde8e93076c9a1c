# puppet-rabbitmq, README
# native: refused /usr/share/puppet/modules/rabbitmq/manifests/config.pp:215:12: unsupported by the native engine: the fact 'systemd', which the native fact gatherer does not know
# noop: svc[rabbitmq-server]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
# noop: pippet[Rabbitmq_plugin[rabbitmq_management]]: error: puppet failed to apply rabbitmq_plugin[rabbitmq_management]: Command rabbitmqplugins is missing; /Rabbitmq_plugin[rabbitmq_management]: Could not evaluate: Command rabbitmqplugins is missing
class { 'rabbitmq':
  port => 5672,
}
