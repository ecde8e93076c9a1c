# Ruby in ERB templates: $1..$9 after =~, !~, String#match and case/when;
# Hash.new with and without a default; x[k] = v; scope.to_hash.
class c61($provider = 'locationmatch', $path = '/var/www', $_set = 'yes', $_undef = undef) {
  file { '/tmp/c61': ensure => file, content => template('c61mod/ruby.erb') }
}
include c61
