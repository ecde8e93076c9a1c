file { "/tmp/c26a": ensure => file, before => File["/tmp/c26b"] }
file { "/tmp/c26b": ensure => file, notify => Notify["c26"] }
notify { "c26": subscribe => File["/tmp/c26c"] }
file { "/tmp/c26c": ensure => file, require => [File["/tmp/c26a"], File["/tmp/c26b"]] }
