$osname = "Debian"
case $osname {
  "RedHat", "CentOS": { $pkg = "httpd" }
  /^Deb/: { $pkg = "apache2-${0}" }
  default: { $pkg = "unknown" }
}
notify { "c10": message => $pkg }
case "zzz" { "a": { notify { "a": } } default: { notify { "c10 default": } } }
