package puppet

import (
	"testing"
)

// TestServiceForms checks the translation of a service's commands and of
// the parameters the systemd provider ignores.
func TestServiceForms(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   string // the svc parameters; "" for a pippet fallback
	}{
		{"restart command (xinetd)", map[string]any{"ensure": "running", "enable": true, "hasrestart": true,
			"hasstatus": false, "restart": "/usr/sbin/service xinetd reload"},
			`{"restartcmd":"/usr/sbin/service xinetd reload","startup":"enabled","state":"running"}`},
		{"status command (postgresql)", map[string]any{"ensure": "running", "status": "/usr/sbin/service postgresql@*-main status"},
			`{"refresh":"restart","state":"running","statuscmd":"/usr/sbin/service postgresql@*-main status"}`},
		{"start and stop", map[string]any{"ensure": "stopped", "start": "/etc/init.d/x start", "stop": "/etc/init.d/x stop"},
			`{"refresh":"restart","startcmd":"/etc/init.d/x start","state":"stopped","stopcmd":"/etc/init.d/x stop"}`},
		{"pattern and binary ignored (tftpd-hpa)", map[string]any{"ensure": "stopped", "enable": false, "hasstatus": false,
			"pattern": "/usr/sbin/in.tftpd", "binary": "/usr/sbin/in.tftpd"},
			`{"refresh":"restart","startup":"disabled","state":"stopped"}`},
		{"a refresh restarts, never reloads", map[string]any{"ensure": "running", "enable": true},
			`{"refresh":"restart","startup":"enabled","state":"running"}`},
		{"explicit systemd provider", map[string]any{"provider": "systemd", "restart": "/bin/true"}, `{"restartcmd":"/bin/true"}`},
		{"debian provider with a pattern", map[string]any{"provider": "debian", "pattern": "x"}, ""},
		{"debian provider with a command", map[string]any{"provider": "debian", "status": "/bin/true"}, ""},
		{"init provider", map[string]any{"provider": "init"}, ""},
		{"empty command", map[string]any{"restart": ""}, ""},
		{"command as an array", map[string]any{"restart": []any{"/bin/true"}}, ""},
		{"timeout", map[string]any{"timeout": int64(10)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := translateOneChecked(t, "service", "s", tc.params)
			if tc.want == "" {
				if r.Kind != "pippet" {
					t.Fatalf("want a pippet fallback, got %s %s", r.Kind, asJSON(r.Params))
				}
				return
			}
			if r.Kind != "svc" || r.Name != "s" || asJSON(r.Params) != tc.want {
				t.Fatalf("got %s[%s] %s, want svc %s", r.Kind, r.Name, asJSON(r.Params), tc.want)
			}
		})
	}
}
