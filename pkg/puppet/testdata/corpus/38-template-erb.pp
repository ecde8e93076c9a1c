class c38($items = ["a", "b"], $enabled = true, $name2 = "srv") {
  file { "/tmp/c38": ensure => file, content => template("c38mod/conf.erb") }
}
include c38
