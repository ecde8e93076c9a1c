# puppetlabs-sshkeys_core, README
# native: same
# noop: clean
ssh_authorized_key { 'nick@magpie.example.com':
  ensure => present,
  user   => 'root',
  type   => 'ssh-rsa',
  key    => 'AAAAB3NzaC1yc2EAAAABJQAAAIEAuYkb+w4aHHpgajL0KBvQLXc2GxDb3kT2ytNTlTt',
}
