$top = "top"
class c48 { $local = "local" notify { "c48 ${top} ${local}": } }
include c48
notify { "c48 main ${c48::local}": }
