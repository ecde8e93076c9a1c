# nanliu-staging, README: a file from a local path
# native: same
# noop: pippet[File[/opt/staging//sample.tar.gz]]: error: puppet failed to apply file[/opt/staging//sample.tar.gz]: Could not retrieve information from environment production source(s) file:///usr/share/doc/puppet/README.md; /File[/opt/staging//sample.tar.gz]: Could not evaluate: Could not retrieve information from environment production source(s) file:///usr/share/doc/puppet/README.md
staging::file { 'sample.tar.gz':
  source => '/usr/share/doc/puppet/copyright',
}
