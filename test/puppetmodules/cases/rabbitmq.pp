# puppet-rabbitmq, README
# native: same
# noop: clean
class { 'rabbitmq':
  port => 5672,
}
