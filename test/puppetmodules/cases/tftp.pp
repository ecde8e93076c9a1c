# puppetlabs-tftp, README
# native: same
# noop: pippet[File[/opt/tftp/pxelinux.0]]: error: puppet failed to apply file[/opt/tftp/pxelinux.0]: Could not retrieve information from environment production source(s) puppet:///modules/tftp/README; /File[/opt/tftp/pxelinux.0]: Could not evaluate: Could not retrieve information from environment production source(s) puppet:///modules/tftp/README
class { 'tftp':
  directory => '/opt/tftp',
  address   => $::ipaddress,
  options   => '--ipv6 --timeout 60',
}
tftp::file { 'pxelinux.0':
  source => 'puppet:///modules/rsync/motd',
}
