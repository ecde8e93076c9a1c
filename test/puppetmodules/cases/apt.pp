# puppetlabs-apt, README: declaring a source
# native: same
# noop: clean
class { 'apt': }
apt::source { 'debian_stable':
  location => 'http://deb.debian.org/debian',
  release  => 'bookworm',
  repos    => 'main contrib non-free',
}
