$list = ["/tmp/c07a", "/tmp/c07b"]
$more = $list + ["/tmp/c07c"]
file { $more: ensure => file }
$h = { "a" => 1 } + { "b" => 2 }
notify { "c07": message => "${h['a']} ${h['b']} ${more[-1]}" }
