file { "/tmp/c50": ensure => file, content => 'single \'quoted\' \\ \n kept' }
notify { "c50": message => "unicode \u00e9 \u{1F600} dollar \$x" }
