class c14($path = "/tmp/c14", $content = "default\n") {
  file { $path: ensure => file, content => $content }
}
class { "c14": content => "given\n" }
