# puppetlabs-tftp, README
# native: same
# noop: clean
class { 'tftp':
  directory => '/opt/tftp',
  address   => $::ipaddress,
  options   => '--ipv6 --timeout 60',
}
tftp::file { 'pxelinux.0':
  source => 'puppet:///modules/rsync/motd',
}
