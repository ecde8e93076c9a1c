# Expressions and their values. Each `check` notify holds [value,
# expected]: the native engine's tests require the two equal, and the
# differential test requires real Puppet's catalog to be the same.
$i = 7
$a = ["b", "a", "c"]
$h = { "x" => 1, "y" => [2, 3] }

# arithmetic: Ruby's integer division and modulo round towards -infinity
notify { "check int division": message => [[7 / 2, -7 / 2, 7 / -2, -7 / -2], [3, -4, -4, 3]] }
notify { "check modulo": message => [[7 % 3, -7 % 3, 7 % -3], [1, 2, -2]] }
notify { "check float arithmetic": message => [[7.0 / 2, 1 + 2.5, 2 * 1.5, 0.5 - 1], [3.5, 3.5, 3.0, -0.5]] }
notify { "check numeric strings": message => ["3" + 4, 7] }
notify { "check hex and octal": message => [0x1F + 010, 39] }
notify { "check shifts": message => [[1 << 4, 256 >> 2, -8 >> 1], [16, 64, -4]] }
notify { "check precedence": message => [[2 + 3 * 4, (2 + 3) * 4, 10 - 4 - 3, -$i + 1], [14, 20, 3, -6]] }
notify { "check big integer": message => [9007199254740993 + 0, 9007199254740993] }

# comparisons: strings compare without case, numbers across Integer and Float
notify { "check equality": message => [["abc" == "ABC", 1 == 1.0, "1" == 1, [1, "a"] == [1, "A"], { "a" => 1 } == { "a" => 1 }], [true, true, false, true, true]] }
notify { "check ordering": message => [["a" < "B", 2 < 10, "2" < "10", 1.5 >= 1], [true, true, false, true]] }
notify { "check in": message => [["b" in $a, "B" in $a, "x" in $h, "ell" in "Hello", /^c/ in $a, 3 in $h["y"]], [true, true, true, true, true, true]] }
notify { "check not in": message => [["z" in $a, 2 in $h], [false, false]] }

# logic and truth: only false and undef are false
notify { "check truth": message => [[if "" { 1 } else { 2 }, if 0 { 1 } else { 2 }, if [] { 1 } else { 2 }, if undef { 1 } else { 2 }], [1, 1, 1, 2]] }
notify { "check logic": message => [[true and false, true or false, !true, !undef, false or "x" == "X"], [false, true, false, true, true]] }

# collections
notify { "check array plus": message => [[[1, 2] + [3], [1, 2] + 3, [1] + [[2]]], [[1, 2, 3], [1, 2, 3], [1, [2]]]] }
notify { "check array minus": message => [[1, 2, 3, 2] - [2], [1, 3]] }
notify { "check append": message => [[[1, 2] << 3, [1] << [2]], [[1, 2, 3], [1, [2]]]] }
notify { "check hash plus": message => [{ "a" => 1, "b" => 2 } + { "a" => 3 }, { "a" => 3, "b" => 2 }] }
notify { "check hash minus": message => [{ "a" => 1, "b" => 2 } - ["a"], { "b" => 2 }] }
notify { "check index": message => [[$a[0], $a[-1], $a[1, 2], $a[5], $h["y"][1], $h["z"]], ["b", "c", ["a", "c"], undef, 3, undef]] }
notify { "check string index": message => [["hello"[1], "hello"[1, 3], "hello"[-2, 2]], ["e", "ell", "lo"]] }

# strings and interpolation
notify { "check interpolation": message => ["${i}-${a[1]}-${h['y'][0]}-${1 + 2}-${$i * 2}", "7-a-2-3-14"] }
notify { "check interpolated collections": message => ["${a} ${h}", "[b, a, c] {x => 1, y => [2, 3]}"] }
notify { "check escapes": message => ["t\tn\\ \$i \u00e9 \u{1F600}", 't	n\ $i é 😀'] }
notify { "check single quotes": message => ['a\'b\\c\d $i', "a'b\\c\\d \$i"] }
$f = [1.0, 0.1 + 0.2, 1e3, 2.5e-3, 1.5e300 * 10, 1e15, 999999999999999.9, 1e-5, 0.0001, 5e-324]
notify { "check float strings": message => [$f.map |$x| { "${x}" }, ["1.0", "0.30000000000000004", "1000.0", "0.0025", "1.5e+301", "1.0e+15", "999999999999999.9", "1.0e-05", "0.0001", "5.0e-324"]] }

# regular expressions and captures
if "abc123" =~ /([a-z]+)(\d+)/ {
  notify { "check captures": message => [[$0, $1, $2], ["abc123", "abc", "123"]] }
}
notify { "check no match": message => [["abc" !~ /\d/, "abc" =~ /B/], [true, false]] }

# selectors and case
notify { "check selector": message => [[$i ? { 1 => "one", 7 => "seven", default => "many" }, "x" ? { /^y/ => 1, default => 2 }, "Foo" ? { "foo" => "ci", default => "cs" }], ["seven", 2, "ci"]] }
$c = case $a[0] {
  "a", "b": { "ab" }
  default: { "other" }
}
notify { "check case": message => [$c, "ab"] }
$t = case 5 {
  String: { "string" }
  Integer[6]: { "big" }
  Integer: { "int" }
}
notify { "check case by type": message => [$t, "int"] }
notify { "check type match": message => [[5 =~ Integer, "a" =~ String[2], [1] =~ Array[Integer], { "a" => 1 } =~ Hash[String, Integer]], [true, false, true, true]] }
