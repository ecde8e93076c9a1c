# Fetches this node's catalog from its Puppet server the way puppet agent
# does, without applying it: it syncs the server's plugins (custom facts
# and types) into the agent's libdir, gathers the node's facts with Facter,
# sends them with the catalog request, and writes the catalog the server
# compiled, as rich-data JSON, on stdout. The arguments are Puppet settings
# (--config FILE, --certname NAME, --environment NAME).
#
# It uses the agent's certificate, key and CA certificate as they are: it
# never requests a certificate nor trusts a CA certificate it has not got
# (puppet ssl bootstrap does that). Any failure is one line of JSON,
# {"error": MESSAGE, "step": STEP}, on stdout, and exit code 1.
require 'puppet'
require 'puppet/configurer'
require 'json'
require 'socket'

proto = $stdout.dup
$stdout.reopen($stderr)
proto.sync = true

step = 'settings'
server = ''
begin
  Puppet.settings.preferred_run_mode = :agent
  Puppet.initialize_settings(ARGV + ['--color', 'false', '--log_level', 'warning'])
  Puppet::Util::Log.newdestination(:console)
  Puppet::Node::Facts.indirection.terminus_class = :facter
  Puppet::Resource::Catalog.indirection.terminus_class = :rest
  certname = Puppet[:certname]
  env = Puppet::Node::Environment.remote(Puppet[:environment].to_sym)

  step = 'certificate'
  ssl = Puppet.runtime[:http].default_ssl_context
  Puppet.override({ ssl_context: ssl }, 'agent catalog') do
    step = 'server'
    server = Puppet[:server_list].empty? ? "#{Puppet[:server]}:#{Puppet[:serverport]}" : 'server_list'
    if Puppet[:server_list].empty?
      # the reason when nothing answers (Puppet says only that no route
      # is left)
      Socket.tcp(Puppet[:server], Puppet[:serverport], connect_timeout: Puppet[:http_connect_timeout]).close
    end
    Puppet.lookup(:http_session).route_to(:puppet)

    step = 'pluginsync'
    Puppet::Configurer::PluginHandler.new.download_plugins(env)

    step = 'facts'
    facts = Puppet::Node::Facts.indirection.find(certname, environment: env)

    step = 'catalog'
    catalog = Puppet::Resource::Catalog.indirection.find(
      certname, environment: env, facts_for_catalog: facts,
                ignore_cache: true, ignore_cache_save: true, fail_on_404: true
    )
    raise "the server returned no catalog" if catalog.nil?

    data = Puppet.override(rich_data: true) { catalog.to_data_hash }
    proto.puts(data.to_json)
  end
rescue Exception => e
  msg = e.message.to_s.strip
  if step == 'server'
    msg = "cannot reach the Puppet server at #{server}: #{msg}"
  end
  proto.puts({ 'error' => msg, 'step' => step }.to_json)
  exit 1
end
