define c47($greeting = "hi") { notify { "c47 ${title} ${name} ${greeting}": } }
c47 { "t1": }
class c47c { notify { "c47c ${title} ${name}": } }
include c47c
