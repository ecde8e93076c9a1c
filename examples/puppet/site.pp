# A small manifest showing what puppet-graph translates natively and what
# it hands to Puppet (pippet):
#   puppet-graph --stats examples/puppet/site.pp | mgmt-apply --noop --converged-timeout 1
File { backup => false }

class motd($greeting = "managed by mgmt") {
  file { "/tmp/mgmt-puppet-demo/motd":
    ensure  => file,
    content => "${greeting} on ${facts['os']['name']} ${facts['os']['release']['major']}\n",
    mode    => "0644",
  }
}

file { "/tmp/mgmt-puppet-demo": ensure => directory }
class { "motd": }

exec { "announce":
  command     => "/bin/echo motd changed",
  refreshonly => true,                       # runs when Class["motd"] changed
  subscribe   => Class["motd"],
}

tidy { "/tmp/mgmt-puppet-demo":              # no native kind: pippet
  age     => "1w",
  recurse => true,
}

notify { "demo": message => "puppet-graph demo applied" }
Class["motd"] -> Notify["demo"]
