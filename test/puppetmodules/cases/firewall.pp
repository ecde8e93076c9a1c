# puppetlabs-firewall, README: rules with the firewall type
# native: same
# noop: access]]: error: puppet failed to apply firewall[100 allow http and https access]: Prefetch failed for firewall provider 'iptables'; Puppet: Could not prefetch firewall provider 'iptables': Command iptables_save is missing
# noop: icmp]]: error: puppet failed to apply firewall[000 accept all icmp]: Prefetch failed for firewall provider 'iptables'; Puppet: Could not prefetch firewall provider 'iptables': Command iptables_save is missing
firewall { '000 accept all icmp':
  proto  => 'icmp',
  action => 'accept',
}
firewall { '100 allow http and https access':
  dport  => [80, 443],
  proto  => 'tcp',
  action => 'accept',
}
