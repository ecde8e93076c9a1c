# puppet-collectd, examples/init.pp
# native: same
# noop: clean
include collectd
