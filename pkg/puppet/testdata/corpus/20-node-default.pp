node default { file { "/tmp/c20": ensure => file } }
