class c16base { file { "/tmp/c16base": ensure => file } }
class c16 {
  require c16base
  file { "/tmp/c16": ensure => file }
}
include c16
