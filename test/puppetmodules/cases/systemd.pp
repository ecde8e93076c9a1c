# camptocamp-systemd, README: a unit file and a tmpfile
# native: same
# noop: clean
systemd::unit_file { 'foo.service':
  content => "[Unit]\nDescription=foo\n\n[Service]\nExecStart=/bin/true\n",
}
systemd::tmpfile { 'foo.conf':
  content => "d /run/foo 0755 root root -\n",
}
