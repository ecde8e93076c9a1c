# pcfens-filebeat, README
# native: refused /usr/share/puppet/modules/filebeat/templates/pure_hash.yml.erb:2:22: unsupported by the native engine: Ruby in a template: the method Hash#to_yaml
# noop: clean
class { 'filebeat':
  outputs => {
    'logstash' => {
      'hosts'       => ['localhost:5044'],
      'loadbalance' => true,
    },
  },
}
filebeat::input { 'syslogs':
  paths    => ['/var/log/auth.log', '/var/log/syslog'],
  doc_type => 'syslog-beat',
}
