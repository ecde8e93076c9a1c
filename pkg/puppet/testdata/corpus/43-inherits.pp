class c43base { $v = "base" file { "/tmp/c43base": ensure => file } }
class c43 inherits c43base { notify { "c43 ${v}": } }
include c43
