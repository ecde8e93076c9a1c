# Functions and their values. Each `check` notify holds [value, expected]
# (see 60-expression-values.pp).
$l = ["b", "a", "c", "a"]
$h = { "x" => 1, "y" => 2 }

# iteration
notify { "check each returns its argument": message => [[1, 2].each |$x| { $x }, [1, 2]] }
notify { "check map": message => [[[1, 2].map |$x| { $x * 2 }, $l.map |$i, $v| { "${i}${v}" }, $h.map |$k, $v| { "${k}=${v}" }], [[2, 4], ["0b", "1a", "2c", "3a"], ["x=1", "y=2"]]] }
notify { "check filter": message => [[[1, 2, 3, 4].filter |$x| { $x % 2 == 0 }, $h.filter |$k, $v| { $v > 1 }], [[2, 4], { "y" => 2 }]] }
notify { "check reduce": message => [[[1, 2, 3].reduce |$m, $x| { $m + $x }, [1, 2, 3].reduce(10) |$m, $x| { $m + $x }, ["a", "b"].reduce("") |$m, $x| { "${m}${x}" }], [6, 16, "ab"]] }
notify { "check with": message => [with(1, 2) |$a, $b| { $a + $b }, 3] }
notify { "check then and lest": message => [[undef.then |$x| { 1 }, 5.then |$x| { $x + 1 }, undef.lest || { "fallback" }, "v".lest || { "fallback" }], [undef, 6, "fallback", "v"]] }
notify { "check next and break": message => [[[1, 2, 3].map |$x| { if $x == 2 { next(0) } $x }, [1, 2, 3, 4].filter |$x| { if $x > 2 { break() } true }], [[1, 0, 3], [1, 2]]] }

# arrays and hashes
notify { "check sort": message => [[sort($l), sort([10, 9, 100]), sort(["b", "A", "a"])], [["a", "a", "b", "c"], [9, 10, 100], ["A", "a", "b"]]] }
notify { "check unique flatten": message => [[unique($l), unique([1, "1", 1]), flatten([1, [2, [3, []]]])], [["b", "a", "c"], [1, "1"], [1, 2, 3]]] }
notify { "check keys values": message => [[keys({ "b" => 1, "a" => 2 }), values($h), $h.keys.sort], [["b", "a"], [1, 2], ["x", "y"]]] }
notify { "check size length empty": message => [[size($l), length("héllo"), size($h), empty([]), empty(""), empty({}), empty("x")], [4, 5, 2, true, true, true, false]] }
notify { "check min max": message => [[max(1, 5, 3), min(4, -1), max(2, 2.5), min(1.5, 2)], [5, -1, 2.5, 1.5]] }
notify { "check dig": message => [[dig({ "a" => { "b" => [1, 2] } }, "a", "b", 1), { "a" => 1 }.dig("z", "y")], [2, undef]] }
notify { "check join split": message => [[join($l, "-"), split("a,b,,c", ","), split("a,b,,", ","), split("a1b22c", /\d+/)], ["b-a-c-a", ["a", "b", "", "c"], ["a", "b"], ["a", "b", "c"]]] }

# strings
notify { "check case functions": message => [[upcase("abc"), downcase("ABC"), capitalize("hELLO"), upcase($l)], ["ABC", "abc", "Hello", ["B", "A", "C", "A"]]] }
notify { "check strip": message => [[strip("  s  "), lstrip("  s "), rstrip(" s  "), chomp("line\n")], ["s", "s ", " s", "line"]] }
notify { "check sprintf": message => [[sprintf("%s-%d", "a", 3), sprintf("%05.2f", 3.14159), sprintf("%x", 255), sprintf("%-4s|", "ab"), sprintf("%o", 8), sprintf("%%")], ["a-3", "03.14", "ff", "ab  |", "10", "%"]] }
notify { "check regsubst": message => [[regsubst("a-b-c", "-", "_"), regsubst("a-b-c", "-", "_", "G"), regsubst("abc", "(b)", "[\\1]"), regsubst(["ax", "bx"], "x$", "y")], ["a_b-c", "a_b_c", "a[b]c", ["ay", "by"]]] }
notify { "check match": message => [["abc".match(/(b)(c)/), "abc".match(/z/), ["a1", "b"].match(/\d/)], [["bc", "b", "c"], undef, [["1"], undef]]] }

# numbers and conversions
notify { "check abs": message => [[abs(-3), abs(-2.5), abs(4)], [3, 2.5, 4]] }
notify { "check conversions": message => [[Integer("0x10"), Integer("-12"), Integer(3.9), Numeric("1.5"), Float(2), String(5), Boolean("true")], [16, -12, 3, 1.5, 2.0, "5", true]] }
notify { "check assert_type": message => [assert_type(Integer[0], 5), 5] }

# stdlib
notify { "check stdlib collections": message => [[merge($h, { "y" => 3 }), concat([1], [2, 3], 4), delete($l, "a"), member($l, "c"), has_key($h, "x")], [{ "x" => 1, "y" => 3 }, [1, 2, 3, 4], ["b", "c"], true, true]] }
notify { "check pick": message => [[pick(undef, "", "x"), pick_default(undef, "d"), pick_default(undef)], ["x", "d", ""]] }
notify { "check str2bool bool2str": message => [[str2bool("yes"), str2bool("false"), bool2str(true)], [true, false, "true"]] }
notify { "check delete_undef_values": message => [[delete_undef_values([1, undef, 2]), delete_undef_values({ "a" => undef, "b" => 1 })], [[1, 2], { "b" => 1 }]] }
