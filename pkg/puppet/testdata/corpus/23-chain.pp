file { "/tmp/c23a": ensure => file }
file { "/tmp/c23b": ensure => file }
file { "/tmp/c23c": ensure => file }
File["/tmp/c23a"] -> File["/tmp/c23b"] -> File["/tmp/c23c"]
