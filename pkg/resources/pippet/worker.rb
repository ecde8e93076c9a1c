# The pippet worker: one long-running Puppet process that applies single
# resources in one environment. Started with one argument, a JSON object
# {"puppetconf": FILE, "environment": NAME, "modulepath": "DIR:DIR"} (each
# optional: Puppet's own configuration). Protocol: one JSON request per
# line on stdin,
#   {"type": T, "title": X, "params": {...}, "sensitive": [NAMES],
#    "companions": [{"type", "title", "params"}], "noop": bool, "refresh": bool}
# answered by one JSON line on the protocol stream (the original stdout):
#   {"out_of_sync": bool, "changed": bool, "failed": bool, "messages": [...]}
# or {"error": MESSAGE}. Puppet's own log goes to stderr.
#
# Parameters are catalog data, rich data included (Deferred values are
# resolved here, by Puppet, as puppet apply does). Companions are added to
# the same catalog in noop mode: a concat_file needs its fragments, a
# recursive file the files others manage below it. The answer covers the
# resource and what it generates (a concat_file's file, a directory's
# children), not the companions.
require 'puppet'
require 'json'

proto = $stdout.dup
$stdout.reopen($stderr)
cfg = JSON.parse(ARGV[0] || '{}')
args = ['--color', 'false', '--log_level', 'notice']
args += ['--config', cfg['puppetconf']] unless cfg['puppetconf'].to_s.empty?
args += ['--environment', cfg['environment']] unless cfg['environment'].to_s.empty?
Puppet.initialize_settings(args)
Puppet::Util::Log.newdestination(:console)
# as puppet apply: puppet:/// sources are served from the environment's modules
Puppet[:default_file_terminus] = :file_server
proto.sync = true

envname = Puppet[:environment].to_sym
env = if cfg['modulepath'].to_s.empty?
        Puppet.lookup(:environments).get!(envname)
      else
        Puppet::Node::Environment.create(envname, cfg['modulepath'].split(':'))
      end
facts = nil

# pippet_order puts the attributes of rich-data objects ({"__ptype":
# "Deferred", "name": ..., "arguments": ...}) in their type's order: Puppet
# builds such objects from the values in order, and JSON objects have none.
def pippet_order(v)
  case v
  when Array then v.map { |e| pippet_order(e) }
  when Hash
    h = v.transform_values { |e| pippet_order(e) }
    t = h['__ptype']
    if t.is_a?(String) && !h.key?('__pvalue')
      type = begin
        Puppet::Pops::Types::TypeParser.singleton.parse(t)
      rescue StandardError
        nil
      end
      if type.is_a?(Puppet::Pops::Types::PObjectType)
        names = type.attributes(true).keys
        h = h.sort_by { |k, _| k == '__ptype' ? -1 : (names.index(k) || names.size) }.to_h
      end
    end
    h
  else v
  end
end

# Resolving a Deferred value gives its function the node's facts as
# $facts, which Facter takes seconds to minutes to gather. Most functions
# never read them: the values are first resolved with a $facts that stops
# the resolution when anything looks at it, and only then again with all
# the facts, as puppet apply would have them.
class PippetFactsNeeded < Exception; end # not a StandardError: no rescue in a function stops it

class PippetNoFacts < Hash
  (Hash.public_instance_methods(false) + Enumerable.public_instance_methods(false)).uniq.each do |m|
    define_method(m) { |*| raise PippetFactsNeeded }
  end
end

def pippet_resolve_deferred(cat, env, facts)
  compiler = Puppet::Parser::ScriptCompiler.new(env, cat.name, true)
  resolver = Puppet::Pops::Evaluator::DeferredResolver.new(compiler, true)
  if facts.nil?
    compiler.topscope.setvar('facts', PippetNoFacts.new, privileged: true)
  else
    resolver.set_facts_variable(facts)
  end
  resolver.resolve_futures(cat)
end

def pippet_resource(h, noop)
  r = Puppet::Resource.from_data_hash('type' => h['type'], 'title' => h['title'], 'kind' => 'compilable_type',
                                      'parameters' => pippet_order(h['params'] || {}),
                                      'sensitive_parameters' => h['sensitive'] || [])
  r[:noop] = true if noop
  r
end

Puppet.override({ current_environment: env, loaders: Puppet::Pops::Loaders.new(env) }, 'pippet worker') do
  $stdin.each_line do |line|
    begin
      req = JSON.parse(line)
      raise "unknown Puppet type '#{req['type']}'" unless Puppet::Type.type(req['type'])
      cat = Puppet::Resource::Catalog.new(Puppet[:node_name_value], env)
      main = pippet_resource(req, req['noop'])
      cat.add_resource(main)
      others = (req['companions'] || []).map do |c|
        r = pippet_resource(c, true)
        cat.add_resource(r)
        r.ref
      end
      if line.include?('"Deferred"')
        begin
          pippet_resolve_deferred(cat, env, nil)
        rescue PippetFactsNeeded
          facts ||= Puppet::Node::Facts.indirection.find(Puppet[:node_name_value]) ||
                    Puppet::Node::Facts.new(Puppet[:node_name_value], {})
          pippet_resolve_deferred(cat, env, facts)
        end
      end
      ral = cat.to_ral
      tx = ral.apply
      statuses = tx.report.resource_statuses.reject { |ref, _| others.include?(ref) }.values
      out = {
        'out_of_sync' => statuses.any?(&:out_of_sync),
        'changed' => statuses.any?(&:changed),
        'failed' => statuses.any?(&:failed),
        'messages' => statuses.flat_map { |s| s.events.map { |e| e.message.to_s } },
      }
      if out['failed']
        out['messages'] += tx.report.logs.select { |l| l.level == :err }.map { |l| "#{l.source}: #{l.message}" }
      end
      if req['refresh'] && !req['noop'] && !out['failed']
        r = ral.resource(main.ref)
        if r && r.respond_to?(:refresh)
          r.refresh
          out['changed'] = true
          out['messages'] << 'refreshed'
        end
      end
      proto.puts(out.to_json)
    rescue Exception => e
      proto.puts({ "error" => e.message.to_s.lines.first.to_s.strip }.to_json)
    end
  end
end
