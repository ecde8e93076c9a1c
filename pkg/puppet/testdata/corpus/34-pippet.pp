tidy { "/tmp/c34tidy": age => "1w", recurse => 1 }
file { "/tmp/c34": ensure => file, links => follow }
file { "/tmp/c34link": ensure => link, target => "/tmp/c34" }
schedule { "c34": period => daily }
