exec { "c30a": command => "/usr/bin/test -f /tmp/c30 || /usr/bin/touch /tmp/c30", creates => "/tmp/c30" }
exec { "c30b": command => "touch /tmp/c30b", path => ["/usr/bin", "/bin"], unless => "test -f /tmp/c30b" }
exec { "c30c": command => "/bin/echo hi", onlyif => "/bin/true", environment => ["A=1", "B=two"], timeout => 10, cwd => "/tmp" }
exec { "c30d": command => "/bin/echo refresh", refreshonly => true }
