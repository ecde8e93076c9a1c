package { "c59a": ensure => installed }
if !defined(Package["c59a"]) { package { "c59a": ensure => installed } }
if !defined(Package["c59b"]) { package { "c59b": ensure => installed } }
class c59 {}
$x = 1
notify { "c59 ${defined('c59')} ${defined('nosuchclass')} ${defined('file')} ${defined('$x')} ${defined('$nosuch')}": }
notify { "c59f": message => sprintf("%s-%05d-%.2f-%x-%o-%%-%-4s|", "a", 42, 3.14159, 255, 8, "b") }
