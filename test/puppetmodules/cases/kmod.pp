# camptocamp-kmod, README
# native: refused /usr/share/puppet/modules/kmod/manifests/init.pp:10:17: unsupported by the native engine: the fact 'augeasversion', which the native fact gatherer does not know
# noop: clean
kmod::load { 'mymodule': }
kmod::blacklist { 'foo': }
