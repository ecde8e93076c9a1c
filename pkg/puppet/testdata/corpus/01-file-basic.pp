file { "/tmp/c01": ensure => file, content => "hello\n", mode => "0644" }
file { "/tmp/c01dir": ensure => directory, owner => "root", group => "root" }
file { "/tmp/c01gone": ensure => absent }
