class c54 { file { "/tmp/c54": ensure => file } }
class c54b { file { "/tmp/c54b": ensure => file } }
include c54
File { mode => "0600" }
include c54b
define c54d() { file { "/tmp/c54d-${title}": ensure => file } }
c54d { "x": }
