class c41mod { file { "/tmp/c41": ensure => file } }
