# Compiles many manifests in one Puppet process. Reads JSON lines
# {"manifest": PATH, "certname": NAME, "modulepath": DIRS, "facts": {...}}
# and answers each with one JSON line {"catalog": {...}} or {"error": MSG}.
require 'puppet'
require 'json'
Puppet.initialize_settings(['--log_level', 'err'])
Puppet::Util::Log.newdestination(:console) rescue nil
$stdout.sync = true
$stdin.each_line do |line|
  req = JSON.parse(line)
  begin
    env = Puppet::Node::Environment.create(:production, req['modulepath'].split(':'), req['manifest'])
    facts = Puppet::Node::Facts.new(req['certname'], req['facts'])
    node = Puppet::Node.new(req['certname'], facts: facts, environment: env)
    node.merge(facts.values)
    cat = Puppet.override(current_environment: env, loaders: Puppet::Pops::Loaders.new(env)) do
      Puppet::Parser::Compiler.compile(node)
    end
    puts({ 'catalog' => cat.to_data_hash }.to_json)
  rescue Exception => e
    puts({ 'error' => e.message }.to_json)
  end
end
