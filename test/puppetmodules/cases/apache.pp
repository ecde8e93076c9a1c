# puppetlabs-apache, examples/vhost.pp
# native: refused /usr/share/puppet/modules/apache/templates/vhost/_directories.erb:3:13: unsupported by the native engine: Ruby in a template: the scope method setvar
# noop: clean
class { '::apache': }
apache::vhost { 'first.example.com':
  port    => '80',
  docroot => '/var/www/first',
}
apache::vhost { 'third.example.com':
  port        => '80',
  docroot     => '/var/www/third',
  serveradmin => 'admin@example.com',
}
