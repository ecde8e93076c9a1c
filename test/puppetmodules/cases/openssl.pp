# camptocamp-openssl, README
# native: same
# noop: clean
openssl::certificate::x509 { 'foo':
  country      => 'CH',
  organization => 'Example.com',
  commonname   => $::fqdn,
  base_dir     => '/tmp/certs',
}
