file { "/tmp/c56": ensure => directory }
file { "/tmp/c56/run.sh": ensure => file, content => "#!/bin/sh\necho hi\n", mode => "0755" }
exec { "/tmp/c56/run.sh --flag": unless => "/tmp/c56/run.sh --check" }
file { "/tmp/c56/quiet": ensure => file, noop => true, tag => ["a", "b"] }
user { "c56u": ensure => present, groups => "c56g,c56h" }
group { ["c56g", "c56h"]: ensure => present }
