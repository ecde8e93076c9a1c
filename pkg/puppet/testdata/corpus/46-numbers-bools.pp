$hex = 0x1F
$oct = 010
$f = 1.5
$t = true
file { "/tmp/c46": ensure => file, mode => "0755", force => true, recurse => false }
notify { "c46": message => "${hex} ${oct} ${f} ${t} ${[1, 2]}" }
