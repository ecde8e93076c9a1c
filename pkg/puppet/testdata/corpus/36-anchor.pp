anchor { "c36::begin": }
file { "/tmp/c36": ensure => file }
anchor { "c36::end": }
Anchor["c36::begin"] -> File["/tmp/c36"] -> Anchor["c36::end"]
