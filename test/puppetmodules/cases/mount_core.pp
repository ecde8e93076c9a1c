# puppetlabs-mount_core, README
# native: same
# noop: clean
mount { '/mnt/foo':
  ensure  => 'mounted',
  device  => '/dev/foo',
  fstype  => 'ext3',
  options => 'defaults',
}
