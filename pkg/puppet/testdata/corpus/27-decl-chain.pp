file { "/tmp/c27a": ensure => file } -> file { "/tmp/c27b": ensure => file } ~> notify { "c27": }
