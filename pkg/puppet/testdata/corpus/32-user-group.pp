group { "c32g": ensure => present, gid => 4321 }
user { "c32u": ensure => present, uid => 4321, gid => "c32g", groups => ["c32g"], home => "/home/c32u", shell => "/bin/sh" }
file { "/tmp/c32": ensure => file, owner => "c32u", group => "c32g" }
