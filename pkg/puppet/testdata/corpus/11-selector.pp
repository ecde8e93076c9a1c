$osname = "debian"
$svc = $osname ? { "Debian" => "ssh", "RedHat" => "sshd", default => "none" }
$n = 3 ? { 1 => "one", 3 => "three", default => "many" }
notify { "c11": message => "${svc} ${n}" }
