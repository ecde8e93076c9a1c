File { backup => false, mode => "0600" }
file { "/tmp/c03a": ensure => file }
file { "/tmp/c03b": ensure => file, mode => "0755" }
Exec { timeout => 60 }
exec { "/bin/echo c03": }
