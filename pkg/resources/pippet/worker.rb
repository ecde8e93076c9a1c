# The pippet worker: one long-running Puppet process that applies single
# resources. Protocol: one JSON request per line on stdin,
#   {"type": T, "title": X, "params": {...}, "noop": bool, "refresh": bool}
# answered by one JSON line on the protocol stream (the original stdout):
#   {"out_of_sync": bool, "changed": bool, "failed": bool, "messages": [...]}
# or {"error": MESSAGE}. Puppet's own log goes to stderr.
require 'puppet'
require 'json'

proto = $stdout.dup
$stdout.reopen($stderr)
Puppet.initialize_settings(['--color', 'false', '--log_level', 'notice'])
Puppet::Util::Log.newdestination(:console)
proto.sync = true

$stdin.each_line do |line|
  begin
    req = JSON.parse(line)
    raise "unknown Puppet type '#{req['type']}'" unless Puppet::Type.type(req['type'])
    res = Puppet::Resource.new(req['type'], req['title'], parameters: req['params'] || {})
    res[:noop] = true if req['noop']
    cat = Puppet::Resource::Catalog.new
    cat.add_resource(res)
    ral = cat.to_ral
    tx = ral.apply
    status = tx.report.resource_statuses.values.first
    out = {
      'out_of_sync' => status ? status.out_of_sync : false,
      'changed' => status ? status.changed : false,
      'failed' => status ? status.failed : false,
      'messages' => status ? status.events.map { |e| e.message.to_s } : [],
    }
    if req['refresh'] && !req['noop'] && !out['failed']
      r = ral.resource(res.ref)
      if r && r.respond_to?(:refresh)
        r.refresh
        out['changed'] = true
        out['messages'] << 'refreshed'
      end
    end
    proto.puts(out.to_json)
  rescue Exception => e
    proto.puts({ 'error' => e.message.to_s.lines.first.to_s.strip }.to_json)
  end
end
