package { "c31pkg": ensure => installed }
package { "c31old": ensure => absent }
package { "c31new": ensure => latest }
service { "c31svc": ensure => running, enable => true }
service { "c31stop": ensure => stopped, enable => false, provider => systemd }
Package["c31pkg"] -> Service["c31svc"]
