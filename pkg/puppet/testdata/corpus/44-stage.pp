stage { "pre": before => Stage["main"] }
class c44 { file { "/tmp/c44": ensure => file } }
class { "c44": stage => pre }
