# puppetlabs-host_core, README
# native: same
# noop: clean
host { 'db.example.com':
  ip           => '192.0.2.10',
  host_aliases => ['db'],
}
