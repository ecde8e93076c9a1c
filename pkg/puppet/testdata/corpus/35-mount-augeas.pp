mount { "/mnt/c35": ensure => mounted, device => "/dev/sdz1", fstype => "ext4", options => "defaults,noatime", dump => 0, pass => 2 }
augeas { "c35": incl => "/tmp/c35.conf", lens => "Shellvars.lns", changes => ["set A 1", "set B two"] }
