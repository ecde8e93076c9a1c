# camptocamp-postfix, README
# native: same
# noop: clean
class { 'postfix':
  smtp_listen => '0.0.0.0',
}
