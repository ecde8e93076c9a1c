# theforeman-dns, README
# native: same
# noop: clean
include dns
dns::zone { 'example.com': }
