$dir = "/tmp/c05"
$mode = '0640'
file { $dir: ensure => directory }
file { "${dir}/f": ensure => file, mode => $mode, content => "dir is $dir\n" }
