# duritong-sysctl, README
# native: same
# noop: pippet[Sysctl_runtime[vm.nr_hugepages]]: error: puppet failed to apply sysctl_runtime[vm.nr_hugepages]: Prefetch failed for sysctl_runtime provider 'sysctl_runtime'; Puppet: Could not prefetch sysctl_runtime provider 'sysctl_runtime': undefined method `execute' for Puppet::Util:Module\n\n    output = executor.execute("#{Puppet::Util.which('sysctl')} -a", {\n                     ^^^^^^^^
sysctl::value { 'vm.nr_hugepages': value => '1583' }
