file { "/tmp/c04": ensure => file }
File { owner => "root" }
