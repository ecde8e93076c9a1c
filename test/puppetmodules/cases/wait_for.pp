# heini-wait_for, README
# native: same
# noop: clean
wait_for { 'echo foobar':
  regex => 'foobar',
}
