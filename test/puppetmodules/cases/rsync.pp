# puppetlabs-rsync, examples/server_with_motd.pp and README: a module
# native: same
# noop: clean
class { 'rsync::server':
  motd_file => '/etc/rsync-motd',
}
rsync::server::module { 'repo':
  path    => '/var/repo',
  require => File['/var/repo'],
}
file { '/var/repo': ensure => directory }
