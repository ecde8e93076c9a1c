file { "/tmp/c24": ensure => file }
exec { "c24": command => "/bin/echo changed" }
File["/tmp/c24"] ~> Exec["c24"]
