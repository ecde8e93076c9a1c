# puppetlabs-mailalias_core, README
# native: same
# noop: clean
mailalias { 'ftp':
  ensure    => present,
  recipient => 'root',
}
