node "othernode" { notify { "wrong": } }
node "testnode" { file { "/tmp/c21": ensure => file } }
node default { notify { "default": } }
