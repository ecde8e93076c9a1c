class c15(String $name2 = "x", Optional[Integer] $count = undef, Array[String] $list = ["a"]) {
  notify { "c15 ${name2} ${list[0]}": }
  if $count == undef { notify { "c15 no count": } }
}
include c15
