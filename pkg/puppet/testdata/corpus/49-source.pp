file { "/tmp/c49": ensure => directory, source => "file:///etc//skel" }
file { "/tmp/c49f": ensure => file, source => "/etc/hostname" }
