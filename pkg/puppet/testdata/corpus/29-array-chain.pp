file { ["/tmp/c29a", "/tmp/c29b"]: ensure => file }
notify { "c29": }
[File["/tmp/c29a"], File["/tmp/c29b"]] -> Notify["c29"]
