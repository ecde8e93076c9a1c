# Conversions to numbers and the core functions on numbers and sequences,
# as real Puppet computes them: each notify holds the values, and the
# differential test compares them with Puppet's.

# Integer.new: decimal, octal with a leading 0, hex, binary, a radix
notify { "integer forms": message => [Integer("0b1"), Integer("0B11"), Integer("0x1f"), Integer("0X1F"), Integer("017"),
  Integer("-017"), Integer("+5"), Integer("- 5"), Integer("-0x10"), Integer(" 12"), Integer("0x1f", 16),
  Integer("0b11", 2), Integer("11", 2), Integer("0b11", 16), Integer("017", 10), Integer("017", 8), Integer("09", 10),
  Integer(true), Integer(3.9), Integer(-3.9)] }
# Float.new and Numeric.new
notify { "float forms": message => [Float("017"), Float("0x1f"), Float("- 5"), Float("+ 0x10"), Float("0b11"),
  Float(" 5"), Float("0e5"), Float("1"), Float(2), Float("1.5e-3")] }
notify { "numeric forms": message => [Numeric("1e3"), Numeric("1E3"), Numeric("0x10"), Numeric("-0x10"), Numeric("0b11"),
  Numeric("017"), Numeric("+017"), Numeric(" 5"), Numeric("1.5e-3"), Numeric("2.50"), Numeric(7)] }

# floor, ceiling, round
notify { "floor ceiling": message => [floor(3.7), floor(-3.2), floor(4), floor("3.7"), floor("-2"), ceiling(3.2), ceiling(-3.7),
  ceiling(4), ceiling("2.1"), ceiling("1e2")] }
notify { "round": message => [round(2.5), round(-2.5), round(2.4999), round(-0.4), round(0), round(7), round(-7),
  round(1152921504606846977), round(0.5), round(-0.5)] }

# chop, reverse
notify { "chop": message => [chop("abc"), chop("a\r\n"), chop("a\n"), chop("héé"), chop(""), chop(5), chop(1.5),
  chop(["ab", "c\r\n"]), chop([3, 1.5]), chop([])] }
notify { "reverse": message => [reverse("abc"), reverse("héllo"), reverse([1, "b", [3]]), reverse([]), reverse("")] }

# min and max: numbers, strings that look like numbers, other strings,
# mixed values, one array
notify { "min max": message => [max(1, 5, 3), min(4, -1), max(2, 2.5), min(1.5, 2), max("10", "9"), min("10", "9"),
  max("b", "a", "c"), min("b", "a", "c"), max("1_5", "14"), max("1e2", "99"), max("abc", "abd"), max("B", "a"),
  max(10, "9"), min(10, "9"), max("x", 1), min([3, 1, 2]), max(["a", "b"]), max(1, 1.0), min(1.0, 1), max(7)] }

# slice
$h = { "a" => 1, "b" => 2, "c" => 3 }
notify { "slice": message => [slice([1, 2, 3, 4, 5], 2), slice($h, 2), slice([1, 2], 5), slice([], 2), slice("abcde", 2),
  slice(5, 2)] }
$pairs = slice([1, 2, 3], 2).map |$s| { $s }
$seen = [[1, 2, 3, 4, 5].slice(2) |$a, $b| { "${a}-${b}" }, $h.slice(2) |$p, $q| { "${p}/${q}" }]
notify { "slice with lambdas": message => [$pairs, $seen] }
[1, 2, 3].slice(2) |$a, $b| { notify { "slice pair ${a} ${b}": } }
$h.slice(2) |$s| { notify { "slice group ${s}": } }
# the same values written as strings, where an Integer and a Float differ
notify { "number types": message => String([Float("017"), Float("0b11"), Float(2), Numeric("017"), Numeric("2.50"),
  Numeric("0x10"), floor(3.7), ceiling("2.1"), round(2.5), max(2, 2.5), max(1, 1.0), min(1.0, 1), chop(1.5), 1e20, 0.1, 1.5e-7, 123456789012345.0]) }
