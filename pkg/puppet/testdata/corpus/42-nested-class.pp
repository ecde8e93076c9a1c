class c42 {
  class inner { file { "/tmp/c42inner": ensure => file } }
  include c42::inner
}
include c42
