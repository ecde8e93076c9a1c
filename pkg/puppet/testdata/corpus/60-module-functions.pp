# Functions modules write in Ruby that the native engine does in Go
# (postgresql, memcached), Enum of a list, and an attribute set to undef,
# which takes no resource default.
$acls = postgresql::postgresql_acls_to_resources_hash([
  'host all all 127.0.0.1/32 md5',
  "local\tall   postgres   peer map=x",
  'host db user 10.0.0.0 255.0.0.0 md5 opt1 opt2',
  'hostssl all all ::1/128',
  'host all all 127.0.0.1/32 md5',
], 'ipv4acls', 7)
$acls.each |$k, $v| {
  notify { $k: message => to_json($v) }
}
notify { 'passwords':
  message => [postgresql::postgresql_password('user', 'secret'), postgresql::postgresql_password(42, 1234)],
}
notify { 'max_memory':
  message => [memcached::max_memory(undef), memcached::max_memory('50%'), memcached::max_memory('12.5%'),
    memcached::max_memory(64), memcached::max_memory('128'), memcached::max_memory(false)],
}
$methods = ['md5', 'peer']
notify { 'enum':
  message => ['peer' =~ Enum[$methods], 'trust' =~ Enum[$methods, 'trust'], 'x' =~ Enum[$methods]],
}
Notify { message => 'the default' }
notify { 'undef takes no default': message => undef }
notify { 'unset takes the default': }
define corpus60($p = 'its own default') {
  notify { "corpus60 ${title}": message => $p }
}
Corpus60 { p => 'a resource default' }
corpus60 { 'undef': p => undef }
corpus60 { 'unset': }
