# puppet-ssh_keygen, README
# native: same
# noop: clean
ssh_keygen { 'john': }
