notify { "c12": message => "${facts['os']['family']} ${facts['kernel']} ${facts['hostname']}" }
file { "/tmp/c12-${facts['os']['name']}": ensure => file, content => "$osfamily $operatingsystem $hostname $fqdn\n" }
if $facts['os']['family'] == "Debian" { notify { "c12 debian": } }
