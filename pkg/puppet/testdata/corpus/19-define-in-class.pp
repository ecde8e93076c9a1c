define c19w($v) { notify { "c19 ${title} ${v}": } }
class c19 { c19w { "a": v => 1 } c19w { "b": v => 2, require => C19w["a"] } }
include c19
