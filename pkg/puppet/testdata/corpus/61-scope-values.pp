# Scopes and their values. Each `check` notify holds [value, expected]
# (see 60-expression-values.pp).
$top = "top"
$shadowed = "top"

class scope_base ($p = "base default") {
  $base_var = "from base"
  $shadowed = "base"
}

class scope_child inherits scope_base {
  # an inheriting class sees its parent's variables and parameters
  notify { "check inherited": message => [[$base_var, $p, $shadowed, $::shadowed], ["from base", "base default", "base", "top"]] }
}

class scope_params (
  String $a = "a",
  String $b = "${a}+b",
  Array $l = [$a, $b],
) {
  # a parameter's default may use the parameters before it
  notify { "check param defaults": message => [[$a, $b, $l], ["A", "A+b", ["A", "A+b"]]] }
}

class scope_outer {
  $outer_only = "outer"
  include scope_inner
}

class scope_inner {
  # no dynamic scoping: the including class's variables are not seen
  notify { "check no dynamic scope": message => [[$outer_only, $top, $::top], [undef, "top", "top"]] }
}

class scope_vars {
  $v = "class var"
  $h = { "k" => [1, 2] }
}

define scope_def (String $msg = "default msg") {
  $local = "${title}:${msg}"
  notify { "check define ${title}": message => [[$title, $name, $local], [$title, $title, "${title}:${msg}"]] }
}

include scope_child
class { "scope_params": a => "A" }
include scope_outer
include scope_vars
scope_def { "one": }
scope_def { "two": msg => "given" }

# a class's variables are read with its qualified name
notify { "check qualified": message => [[$scope_vars::v, $::scope_vars::v, $scope_vars::h["k"][1], $scope_base::p], ["class var", "class var", 2, "base default"]] }

# lambdas close over their scope; parameters shadow it, and do not leak
$n = 10
$sums = [1, 2].map |$x| { $x + $n }
$shadow = [1, 2].map |$n| { $n * 2 }
notify { "check closures": message => [[$sums, $shadow, $n], [[11, 12], [2, 4], 10]] }
$counter = [1, 2, 3].reduce(0) |$memo, $x| { $memo + $x * $n }
notify { "check reduce closure": message => [$counter, 60] }

# variables set in an if or case body belong to the enclosing scope
if true { $from_if = "if" }
case "x" { "x": { $from_case = "case" } default: {} }
notify { "check block scope": message => [[$from_if, $from_case], ["if", "case"]] }

# facts: $facts, top-scope legacy facts, trusted-like node name
notify { "check facts": message => [[$facts["os"]["family"], $::osfamily, $facts["os"]["release"]["major"], $facts["nosuch"]], ["Debian", "Debian", "12", undef]] }
