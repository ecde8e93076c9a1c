define c18::thing($content = "none\n", $mode = "0644") {
  file { "/tmp/c18-${title}": ensure => file, content => $content, mode => $mode }
  notify { "c18 ${name}": }
}
c18::thing { "one": }
c18::thing { ["two", "three"]: content => "x\n" }
