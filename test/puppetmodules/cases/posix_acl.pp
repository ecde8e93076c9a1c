# puppet-posix_acl, README
# native: same
# noop: pippet[Posix_acl[/var/log/httpd]]: error: puppet failed to apply posix_acl[/var/log/httpd]: /Posix_acl[/var/log/httpd]: Provider posixacl is not functional on this host
posix_acl { '/var/log/httpd':
  action     => set,
  permission => ['user::rwx', 'group::---', 'mask::r-x', 'other::---', 'group:logview:r-x'],
  provider   => posixacl,
  recursive  => false,
}
