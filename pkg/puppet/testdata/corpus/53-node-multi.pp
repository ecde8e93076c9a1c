$top = "t"
node "othername", "testnode" {
  $nodevar = "n"
  include c53
  include c53c
  c53d { "innode": }
  file { "/tmp/c53-${top}": ensure => file }
}
node "unused" { notify { "never": } }
class c53 { notify { "c53 ${top} [${nodevar}]": } }
define c53d() { notify { "c53d ${title} [${nodevar}]": } }
c53d { "top": }
class c53c { c53d { "fromclass": } }
