$flag = false
unless $flag { file { "/tmp/c09": ensure => file } }
unless true { notify { "never": } } else { notify { "c09 else": } }
