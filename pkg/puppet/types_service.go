package puppet

// serviceMapping translates Puppet's service type to our svc kind (a
// systemd unit; Puppet's default provider on Debian is systemd).
var serviceMapping = &mapping{kind: "svc", whole: serviceCommands, rules: map[string]rule{
	"name":       none,
	"ensure":     enum("state", map[string]any{"running": "running", "true": "running", "stopped": "stopped", "false": "stopped"}),
	"enable":     enum("startup", map[string]any{"true": "enabled", "false": "disabled"}),
	"hasstatus":  none, // the systemd provider always asks systemd
	"hasrestart": none,
}}

// serviceCommandParams are the service's commands and the svc parameters
// they become.
var serviceCommandParams = [][2]string{
	{"status", "statuscmd"}, {"start", "startcmd"}, {"stop", "stopcmd"}, {"restart", "restartcmd"},
}

// serviceCommands translates the provider and what depends on it. A
// refresh of a running service runs its restart command or systemctl
// restart, so without a restart command the svc restarts too. Under
// the systemd provider (Puppet's default on Debian) a status, start, stop
// or restart command replaces that one action, run as one string through
// Ruby's exec, which is /bin/sh -c for a line with shell syntax and the
// same words without; pattern and binary serve only the base provider's
// process table search and its start, which the systemd provider
// replaces, so it ignores them. Under another provider they go to pippet.
func serviceCommands(t *tr) {
	p, _ := t.str("provider")
	systemd := p == "" || p == "systemd"
	if !systemd && p != "debian" {
		t.fallbackValue("provider", p)
	}
	for _, c := range serviceCommandParams {
		v, ok := t.get(c[0])
		if !ok {
			continue
		}
		if s, isStr := v.(string); isStr && systemd && s != "" {
			t.out[c[1]] = s
		} else {
			t.fallbackValue(c[0], v)
		}
	}
	if _, ok := t.out["restartcmd"]; !ok {
		// the systemd provider restarts on a refresh (systemctl
		// restart), never reloads
		t.out["refresh"] = "restart"
	}
	for _, k := range []string{"pattern", "binary"} {
		if v, ok := t.get(k); ok && !systemd {
			t.fallbackValue(k, v)
		}
	}
}
