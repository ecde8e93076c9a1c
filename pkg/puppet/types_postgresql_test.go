package puppet

import "testing"

// TestPostgresqlPsqlForms checks which postgresql_psql resources become
// postgresql:psql resources (the parameters puppetlabs-postgresql's
// roles, databases and grants give them among them), with the SQL as
// Puppet's provider has the shell expand it, and which go to pippet.
func TestPostgresqlPsqlForms(t *testing.T) {
	base := func(extra map[string]any) map[string]any {
		return overlay(map[string]any{"connect_settings": map[string]any{}, "cwd": "/tmp", "db": "postgres", "port": int64(5432),
			"psql_group": "postgres", "psql_path": "/usr/bin/psql", "psql_user": "postgres",
			"unless": "SELECT 1 FROM pg_roles WHERE rolname = 'u'"}, extra)
	}
	const head = `"cwd":"/tmp","db":"postgres","port":5432,"psql_group":"postgres","psql_path":"/usr/bin/psql","psql_user":"postgres"`
	const unless = `"unless":"SELECT 1 FROM pg_roles WHERE rolname = 'u'"`
	for _, tc := range []struct {
		name   string
		params map[string]any
		want   string // JSON of the output parameters; "" for a pippet fallback
	}{
		{"unless, command from the title", base(nil), `{"command":"ALTER ROLE \"u\" LOGIN",` + head + `,` + unless + `}`},
		{"password through the environment", base(map[string]any{
			"command":     `CREATE ROLE "u" ENCRYPTED PASSWORD '$NEWPGPASSWD' LOGIN`,
			"environment": "NEWPGPASSWD=md5abc"}),
			`{"command":"CREATE ROLE \"u\" ENCRYPTED PASSWORD 'md5abc' LOGIN","cwd":"/tmp","db":"postgres",` +
				`"environment":{"NEWPGPASSWD":"md5abc"},"port":5432,"psql_group":"postgres","psql_path":"/usr/bin/psql",` +
				`"psql_user":"postgres","sensitive":true,` + unless + `}`},
		{"braces and connect_settings", base(map[string]any{"command": "SELECT '${A}${B}x'",
			"connect_settings": map[string]any{"A": "1", "PGHOST": "/run/pg"}, "environment": []any{"B=2", "A=3"}}),
			`{"command":"SELECT '32x'","connect_settings":{"A":"1","PGHOST":"/run/pg"},"cwd":"/tmp","db":"postgres",` +
				`"environment":{"A":"3","B":"2"},"port":5432,"psql_group":"postgres","psql_path":"/usr/bin/psql",` +
				`"psql_user":"postgres","sensitive":true,` + unless + `}`},
		{"a lone dollar stays", base(map[string]any{"command": `SELECT '$', '$"', 'a$ b'`}),
			`{"command":"SELECT '$', '$\"', 'a$ b'",` + head + `,` + unless + `}`},
		{"refreshonly, no cwd", base(map[string]any{"unless": nil, "cwd": nil, "refreshonly": true}),
			`{"command":"ALTER ROLE \"u\" LOGIN","db":"postgres","port":5432,"psql_group":"postgres","psql_path":"/usr/bin/psql","psql_user":"postgres","refreshonly":true}`},
		{"onlyif and search_path", base(map[string]any{"unless": nil, "onlyif": "SELECT 1", "search_path": []any{"a", "b"}, "port": "5433"}),
			`{"command":"ALTER ROLE \"u\" LOGIN","cwd":"/tmp","db":"postgres","onlyif":"SELECT 1","port":5433,"psql_group":"postgres","psql_path":"/usr/bin/psql","psql_user":"postgres","search_path":["a","b"]}`},
		{"no guard", base(map[string]any{"unless": nil}), ""},
		{"refreshonly false, no guard", base(map[string]any{"unless": nil, "refreshonly": false}), ""},
		{"dollar quoting", base(map[string]any{"command": "DO $$ BEGIN END $$"}), ""},
		{"unknown variable", base(map[string]any{"command": "SELECT '$HOME'"}), ""},
		{"shell variable", base(map[string]any{"command": "SELECT '$PWD'", "environment": "PWD=/x"}), ""},
		{"positional", base(map[string]any{"command": "SELECT $1"}), ""},
		{"command substitution", base(map[string]any{"command": "SELECT '$(id)'"}), ""},
		{"backquote", base(map[string]any{"unless": "SELECT `x`"}), ""},
		{"backslash", base(map[string]any{"command": `SELECT E'\n'`}), ""},
		{"modifier in braces", base(map[string]any{"command": "SELECT '${A:-x}'", "environment": "A=1"}), ""},
		{"empty environment value", base(map[string]any{"environment": "A="}), ""},
		{"environment with a newline", base(map[string]any{"environment": "A=1\nB=2"}), ""},
		{"connect_settings number", base(map[string]any{"connect_settings": map[string]any{"PGPORT": int64(5432)}}), ""},
		{"db with a space", base(map[string]any{"db": "my db"}), ""},
		{"empty db", base(map[string]any{"db": ""}), ""},
		{"port 0", base(map[string]any{"port": int64(0)}), ""},
		{"port with a zero in front", base(map[string]any{"port": "05432"}), ""},
		{"psql by another name", base(map[string]any{"psql_path": "mypsql"}), ""},
		{"relative cwd", base(map[string]any{"cwd": "tmp"}), ""},
		{"search_path with a variable", base(map[string]any{"search_path": "$S", "environment": "S=x"}), ""},
		{"empty search_path", base(map[string]any{"search_path": []any{}}), ""},
		{"another provider", base(map[string]any{"provider": "other"}), ""},
		{"unknown parameter", base(map[string]any{"instance": "main"}), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := translateOneChecked(t, "postgresql_psql", `ALTER ROLE "u" LOGIN`, tc.params)
			if tc.want == "" {
				if r.Kind != "pippet" {
					t.Fatalf("want a pippet fallback, got %s %s", r.Kind, asJSON(r.Params))
				}
				return
			}
			if r.Kind != "postgresql:psql" || r.Name != `ALTER ROLE "u" LOGIN` || asJSON(r.Params) != tc.want {
				t.Errorf("got %s[%s] %s\nwant postgresql:psql %s", r.Kind, r.Name, asJSON(r.Params), tc.want)
			}
		})
	}
}

// overlay sets the parameters of extra in m, removing those set to nil,
// and returns m.
func overlay(m, extra map[string]any) map[string]any {
	for k, v := range extra {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
	}
	return m
}
