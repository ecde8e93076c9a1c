$l = ["b", "a", "b"]
$h = { "x" => 1, "y" => 2 }
notify { "c52": message => "${upcase('abc')} ${downcase('ABC')} ${capitalize('abc')} ${join($l, '-')} ${size($l)} ${length('héllo')}" }
notify { "c52b": message => "${split('a,b,,c', ',')} ${split('a1b22c', /\d+/)} ${keys($h)} ${values($h)} ${empty([])} ${empty('x')}" }
notify { "c52c": message => "${flatten([1, [2, [3]]])} ${unique($l)} ${sort($l)} ${sort([10, 9, 100])} ${strip('  s  ')}" }
$u = $l.upcase
file { "/tmp/c52-${u[0]}": ensure => file }
