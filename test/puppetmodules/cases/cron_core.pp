# puppetlabs-cron_core, README
# native: same
# noop: pippet[Cron[logrotate]]: error: puppet failed to apply cron[logrotate]: Puppet: Could not find a suitable provider for cron
cron { 'logrotate':
  command => '/usr/sbin/logrotate',
  user    => 'root',
  hour    => 2,
  minute  => 0,
}
