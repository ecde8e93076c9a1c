file { "/tmp/c37": ensure => directory }
file { "/tmp/c37/sub": ensure => directory }
file { "/tmp/c37/sub/deep/file": ensure => file }
file { "/tmp/c37/other": ensure => file, require => File["/tmp/c37"] }
exec { "c37": command => "/bin/ls", cwd => "/tmp/c37" }
