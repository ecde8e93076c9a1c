include c41mod
c41mod::thing { "x": }
