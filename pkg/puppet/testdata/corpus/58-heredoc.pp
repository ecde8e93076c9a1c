$name2 = "world"
file { "/tmp/c58a":
  ensure  => file,
  content => @("EOT"),
    hello ${name2}
      indented \n kept
    | EOT
}
file { "/tmp/c58b": ensure => file, content => @(RAW) }
no $interp here\t
  RAW
notify { "c58": message => @(A:txt) }
trimmed
|- A
