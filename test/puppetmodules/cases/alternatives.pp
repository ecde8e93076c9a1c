# puppet-alternatives, README
# native: same
# noop: clean
alternatives { 'editor':
  path => '/usr/bin/vim.basic',
}
