# saz-ssh, README
# native: refused /usr/share/puppet/modules/ssh/templates/sshd_config.erb:12:3: unsupported by the native engine: Ruby in a template: the keyword end
# noop: clean
include ssh
