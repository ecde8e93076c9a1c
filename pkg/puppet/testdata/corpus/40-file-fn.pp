file { "/tmp/c40": ensure => file, content => file("c38mod/static.txt") }
