# Compiles many manifests in one Puppet process. Reads JSON lines
# {"manifest": PATH, "certname": NAME, "modulepath": DIRS, "facts": {...}}
# and answers each with one JSON line {"catalog": {...}, "seconds": S} or
# {"error": MSG}. Without "facts" the node's facts come from Facter (run
# once); without "certname", Puppet's certname. Catalogs are rendered as
# rich data, as `puppet catalog compile --render-as rich_data_json` does.
require 'puppet'
require 'json'
Puppet.initialize_settings(['--log_level', 'err'])
Puppet::Util::Log.newdestination(:console) rescue nil
$stdout.sync = true
facter = nil
$stdin.each_line do |line|
  req = JSON.parse(line)
  begin
    certname = req['certname'] || Puppet[:certname]
    env = Puppet::Node::Environment.create(:production, req['modulepath'].split(':'), req['manifest'])
    values = req['facts']
    if values.nil?
      # as puppet catalog compile does: Facter with the modules' custom facts
      facter ||= Puppet.override(current_environment: env) do
        Puppet::Node::Facts.indirection.find(certname, environment: env).values
      end
      values = facter
    end
    start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
    facts = Puppet::Node::Facts.new(certname, values)
    node = Puppet::Node.new(certname, facts: facts, environment: env)
    node.merge(facts.values)
    data = Puppet.override(current_environment: env, loaders: Puppet::Pops::Loaders.new(env), rich_data: true) do
      Puppet::Parser::Compiler.compile(node).to_data_hash
    end
    seconds = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
    puts({ 'catalog' => data, 'seconds' => seconds }.to_json)
  rescue Exception => e
    puts({ 'error' => e.message }.to_json)
  end
end
