$a = "x"
$arr = ["p", "q"]
$h = { "k" => "v", "n" => 2 }
file { "/tmp/c06": ensure => file, content => "a=${a} b=$a c=${arr[1]} d=${h['k']} e=${h[n]} f=\$a g=\t\"q\"\n" }
notify { "c06 ${arr}": }
