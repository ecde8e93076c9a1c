# puppetlabs-haproxy, examples/init.pp (without the exported balancer member)
# native: refused /usr/share/puppet/modules/haproxy/templates/fragments/_bind.erb:17:3: unsupported by the native engine: Ruby in a template: the keyword begin
# noop: clean
class { '::haproxy':
  enable           => true,
  global_options   => {
    'log'     => "${::ipaddress} local0",
    'chroot'  => '/var/lib/haproxy',
    'pidfile' => '/var/run/haproxy.pid',
    'maxconn' => '4000',
    'user'    => 'haproxy',
    'group'   => 'haproxy',
    'daemon'  => '',
    'stats'   => 'socket /var/lib/haproxy/stats',
  },
  defaults_options => {
    'log'     => 'global',
    'stats'   => 'enable',
    'option'  => 'redispatch',
    'retries' => '3',
    'timeout' => ['http-request 10s', 'queue 1m', 'connect 10s', 'client 1m', 'server 1m', 'check 10s'],
    'maxconn' => '8000',
  },
}
haproxy::listen { 'stats':
  ipaddress => $::ipaddress,
  ports     => '9090',
  options   => {
    'mode'  => 'http',
    'stats' => ['uri /', 'auth puppet:puppet'],
  },
}
