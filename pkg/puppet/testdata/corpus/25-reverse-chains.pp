file { "/tmp/c25a": ensure => file }
file { "/tmp/c25b": ensure => file }
notify { "c25": }
File["/tmp/c25b"] <- File["/tmp/c25a"]
Notify["c25"] <~ File["/tmp/c25b"]
