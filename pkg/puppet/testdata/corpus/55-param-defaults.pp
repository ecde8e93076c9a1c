class c55($x = "one", $y = "${x}-two", $z = [$x, $y]) {
  notify { "c55 ${x} ${y} ${z[1]}": }
}
class { "c55": x => "uno" }
define c55d($a, $b = upcase($a)) { notify { "c55d ${title} ${a} ${b}": } }
c55d { "i": a => "q" }
