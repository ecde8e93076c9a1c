class c28a { file { "/tmp/c28a": ensure => file } }
class c28b { file { "/tmp/c28b": ensure => file } }
include c28a, c28b
Class["c28a"] -> Class["c28b"]
file { "/tmp/c28x": ensure => file, before => Class["c28a"] }
