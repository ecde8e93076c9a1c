# puppet-rabbitmq, README
# native: same
# noop: svc[rabbitmq-server]: error: watch: d-bus unix:path=/run/dbus/system_bus_socket
# noop: pippet[Rabbitmq_plugin[rabbitmq_management]]: error: puppet failed to apply rabbitmq_plugin[rabbitmq_management]: Command rabbitmqplugins is missing; /Rabbitmq_plugin[rabbitmq_management]: Could not evaluate: Command rabbitmqplugins is missing
class { 'rabbitmq':
  port => 5672,
}
