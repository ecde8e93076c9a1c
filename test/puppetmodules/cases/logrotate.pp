# rodjek-logrotate, README
# native: refused /usr/share/puppet/modules/logrotate/templates/etc/logrotate.d/rule.erb:10:12: unsupported by the native engine: Ruby in a template: the scope method to_hash
# noop: clean
logrotate::rule { 'messages':
  path         => '/var/log/messages',
  rotate       => '5',
  rotate_every => 'week',
  postrotate   => '/usr/bin/killall -HUP syslogd',
}
