# puppetlabs-apache, examples/vhost.pp
# native: refused /usr/share/puppet/modules/apache/templates/vhost/_directories.erb:23:26: unsupported by the native engine: Ruby in a template: global variables
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
