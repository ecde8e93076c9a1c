# duritong-sysctl, README
# native: same
# noop: clean
sysctl::value { 'vm.nr_hugepages': value => '1583' }
