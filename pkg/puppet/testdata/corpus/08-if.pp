$x = 5
if $x > 3 { file { "/tmp/c08a": ensure => file } } else { file { "/tmp/c08b": ensure => file } }
if $x == 1 { notify { "one": } } elsif $x == 5 { notify { "five": } } else { notify { "other": } }
if "" { notify { "empty string is true": } }
if undef { notify { "never": } }
