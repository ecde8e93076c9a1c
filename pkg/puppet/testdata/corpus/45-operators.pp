$a = 7
$b = 2
$s = "Hello World"
notify { "c45": message => "${$a + $b} ${$a - $b} ${$a * $b} ${$a / $b} ${$a % $b} ${-$a}" }
if "world" in $s and !("x" in ["a", "b"]) { notify { "c45 in": } }
if $s =~ /^Hello (\w+)/ { notify { "c45 match ${1}": } }
if $a >= 7 or $b < 0 { notify { "c45 cmp": } }
if "abc" != "ABC" { notify { "never": } } else { notify { "c45 caseless": } }
