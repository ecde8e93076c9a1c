$port = 8080
file { "/tmp/c39": ensure => file, content => epp("c38mod/conf.epp", { "port" => $port, "hosts" => ["h1", "h2"] }) }
