file { ["/tmp/c02a", "/tmp/c02b"]: ensure => file }
file { "/tmp/c02c": ensure => file; "/tmp/c02d": ensure => directory }
