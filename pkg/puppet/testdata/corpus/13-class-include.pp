class c13 { file { "/tmp/c13": ensure => file } }
include c13
include c13
