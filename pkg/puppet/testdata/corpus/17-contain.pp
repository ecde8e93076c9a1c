class c17inner { file { "/tmp/c17inner": ensure => file } }
class c17outer {
  contain c17inner
  file { "/tmp/c17outer": ensure => file }
}
include c17outer
