$files = ["/tmp/c51a", "/tmp/c51b"]
$files.each |$f| { file { $f: ensure => file } }
each({ "k1" => "v1", "k2" => "v2" }) |$k, $v| { notify { "c51 ${k}=${v}": } }
$names = ["x", "y"].map |$n| { "c51-${n}" }
notify { $names: }
$big = [1, 5, 10].filter |$n| { $n > 3 }
notify { "c51 big ${big}": }
["a", "b"].each |$i, $n| { notify { "c51 ${i} ${n}": } }
