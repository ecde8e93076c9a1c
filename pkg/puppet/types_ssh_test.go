package puppet

import (
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestSSHAuthorizedKeyForms checks which ssh_authorized_key resources
// become ssh:authorized_key resources matching by comment: every
// attribute translated, anything else goes to pippet.
func TestSSHAuthorizedKeyForms(t *testing.T) {
	typ, key := testutil.SSHKey(t)
	base := func(extra map[string]any) map[string]any {
		return overlay(map[string]any{"ensure": "present", "user": "deploy", "type": "ed25519", "key": key}, extra)
	}
	head := `"comment":"me@host","key":"` + key + `","matchby":"comment",`
	headFile := `"comment":"me@host","file":"/home/d/.ssh/keys","key":"` + key + `","matchby":"comment",`
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   string // JSON of the output parameters; "" for a pippet fallback
	}{
		{"present", base(nil), `{` + head + `"state":"exists","type":"` + typ + `","user":"deploy"}`},
		{"options and target", base(map[string]any{"options": []any{"no-pty", `from="10.0.0.1"`}, "target": "/home/d/.ssh/keys",
			"drop_privileges": true, "provider": "parsed", "type": typ}),
			`{` + headFile + `"options":["no-pty","from=\"10.0.0.1\""],"state":"exists","type":"` + typ + `","user":"deploy"}`},
		{"one option", base(map[string]any{"options": "no-pty"}), `{` + head + `"options":["no-pty"],"state":"exists","type":"` + typ + `","user":"deploy"}`},
		{"absent by name", map[string]any{"ensure": "absent", "user": "deploy"}, `{"comment":"me@host","matchby":"comment","state":"absent","user":"deploy"}`},
		{"no user", base(map[string]any{"user": nil, "target": "/root/.ssh/authorized_keys"}), ""},
		{"no ensure", base(map[string]any{"ensure": nil}), ""},
		{"target elsewhere", base(map[string]any{"target": "/etc/ssh/keys/deploy"}), ""},
		{"drop_privileges false", base(map[string]any{"drop_privileges": false}), ""},
		{"bad option", base(map[string]any{"options": []any{"command=/bin/true"}}), ""},
		{"key with a space", base(map[string]any{"key": key + " x"}), ""},
		{"type not the key's", base(map[string]any{"type": "rsa"}), ""},
		{"unknown type", base(map[string]any{"type": "ssh-foo"}), ""},
		{"no key", base(map[string]any{"key": nil}), ""},
		{"unknown parameter", base(map[string]any{"purge": true}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := translateOneChecked(t, "ssh_authorized_key", "me@host", tc.params)
			if tc.want == "" {
				if r.Kind != "pippet" {
					t.Fatalf("want a pippet fallback, got %s %s", r.Kind, asJSON(r.Params))
				}
				return
			}
			if r.Kind != "ssh:authorized_key" || r.Name != "me@host" || asJSON(r.Params) != tc.want {
				t.Errorf("got %s[%s] %s, want ssh:authorized_key %s", r.Kind, r.Name, asJSON(r.Params), tc.want)
			}
		})
	}
}
