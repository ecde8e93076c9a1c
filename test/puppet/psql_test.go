package puppet

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// psqlRecorder stands in for psql: it writes its arguments, environment,
// identity and directory to files in the directory named by its own
// place, then runs the real psql.
const psqlRecorder = `#!/bin/sh
o=$(dirname "$0")/out/$(date +%s%N)
printf '%s\n' "$@" > "$o.args"
env > "$o.env"
id > "$o.id"
pwd > "$o.pwd"
exec /usr/bin/psql "$@"
`

// TestPostgresqlPsqlAgainstPuppet applies the same postgresql_psql
// resources (as puppetlabs-postgresql's roles make them: a password hash
// passed through environment, guards, a refresh) two ways on one
// throwaway cluster, each for its own role: natively, as the
// postgresql:psql resources puppet-graph translates them to, and by real
// Puppet through pippet resources. Each side's psql is a recorder: both
// must run psql with the same arguments, identity, directory and
// environment, twice (the second run checks the guards only), and leave
// the same roles.
func TestPostgresqlPsqlAgainstPuppet(t *testing.T) {
	testneed.Puppet(t)
	testneed.Path(t, "/usr/share/puppet/modules/postgresql", "puppet-module-puppetlabs-postgresql")
	pg := testutil.StartPostgres(t)
	pg.Query(t, "postgres", "CREATE ROLE gone_native; CREATE ROLE gone_puppet")
	dir := testutil.SharedTempDir(t)
	const hash = "md50123456789abcdef0123456789abcdef"
	type res struct {
		title  string
		params map[string]any
	}
	resources := func(side string) []res {
		common := func(m map[string]any) map[string]any {
			m["db"], m["port"], m["cwd"] = "postgres", int64(pg.Port), "/tmp"
			m["psql_path"] = filepath.Join(dir, side, "psql")
			m["connect_settings"] = map[string]any{"PGHOST": pg.Dir}
			return m
		}
		role := "r_" + side
		return []res{
			{"CREATE ROLE " + role + " ENCRYPTED PASSWORD ****", common(map[string]any{
				"command":     `CREATE ROLE "` + role + `" ENCRYPTED PASSWORD '$NEWPGPASSWD' LOGIN`,
				"unless":      "SELECT 1 FROM pg_roles WHERE rolname = '" + role + "'",
				"environment": "NEWPGPASSWD=" + hash})},
			{`ALTER ROLE "` + role + `" CREATEDB`, common(map[string]any{
				"unless": "SELECT 1 FROM pg_roles WHERE rolname = '" + role + "' AND rolcreatedb = true"})},
			{"comment " + role, common(map[string]any{
				"command": `COMMENT ON ROLE "` + role + `" IS 'refreshed'`, "refreshonly": true})},
			{"drop gone_" + side, common(map[string]any{
				"command": "DROP ROLE gone_" + side, "onlyif": "SELECT 1 FROM pg_roles WHERE rolname = 'gone_" + side + "'"})},
			// psql prints "SET" before the count: the guard reads 0 rows
			{"table t_" + side, common(map[string]any{
				"command":     "CREATE TABLE IF NOT EXISTS t_" + side + " (x int)",
				"search_path": []any{"public", "pg_catalog"},
				"unless":      "SELECT 1 FROM pg_tables WHERE tablename = 't_" + side + "'"})},
		}
	}
	// the second needs the first, the third is refreshed by it
	var pp strings.Builder
	native := resources("native")
	first := "Postgresql_psql[" + puppetString(native[0].title) + "]"
	for i, r := range native {
		extra := map[int]string{1: ", require => " + first, 2: ", subscribe => " + first}[i]
		fmt.Fprintf(&pp, "postgresql_psql { %s: %s%s }\n", puppetString(r.title), puppetValue(r.params), extra)
	}
	doc := translateNative(t, t.TempDir(), pp.String(), "postgresql:psql")
	var refs []graph.Ref
	for _, r := range resources("puppet") {
		js, _ := json.Marshal(r.params)
		pr := &graph.Resource{Kind: "pippet", Name: "Postgresql_psql[" + r.title + "]", Params: map[string]any{
			"type": "postgresql_psql", "title": r.title, "params": string(js), "modulepath": "/usr/share/puppet/modules"}}
		doc.Resources = append(doc.Resources, pr)
		refs = append(refs, pr.Ref())
	}
	doc.Edges = append(doc.Edges, &graph.Edge{From: refs[0], To: refs[1]}, &graph.Edge{From: refs[0], To: refs[2], Notify: true})
	for _, side := range []string{"native", "puppet"} {
		os.MkdirAll(filepath.Join(dir, side, "out"), 0o777)
		os.Chmod(filepath.Join(dir, side, "out"), 0o777)
		os.WriteFile(filepath.Join(dir, side, "psql"), []byte(psqlRecorder), 0o755)
	}
	for run := 1; run <= 2; run++ {
		applyGraph(t, doc)
		n, q := psqlRuns(t, dir, "native"), psqlRuns(t, dir, "puppet")
		if len(n) == 0 || strings.Join(n, "\n") != strings.Join(q, "\n") {
			t.Errorf("run %d: psql ran natively as\n%s\nand by Puppet as\n%s", run, strings.Join(n, "\n"), strings.Join(q, "\n"))
			continue
		}
		t.Logf("run %d: psql ran %d times on each side, the same way; the first: %s", run, len(n), n[0])
	}
	for _, side := range []string{"native", "puppet"} {
		got := pg.Query(t, "postgres", "SELECT rolpassword, rolcreatedb, shobj_description(oid, 'pg_authid'), "+
			"(SELECT count(*) FROM pg_roles WHERE rolname = 'gone_"+side+"') FROM pg_authid WHERE rolname = 'r_"+side+"'")
		if got != hash+"|t|refreshed|0" {
			t.Errorf("%s: role r_%s is %q", side, side, got)
		}
		if got := pg.Query(t, "postgres", "SELECT schemaname FROM pg_tables WHERE tablename = 't_"+side+"'"); got != "public" {
			t.Errorf("%s: table t_%s is in %q", side, side, got)
		}
	}
}

// psqlRuns reads what the recorder of a side wrote, removes it, and
// returns one line per psql run (sorted: resources run in parallel): its
// arguments, identity, directory and the environment variables that
// concern psql and Puppet's rules, with the side's names replaced by
// SIDE.
func psqlRuns(t *testing.T, dir, side string) []string {
	t.Helper()
	names := strings.NewReplacer("r_"+side, "r_SIDE", "gone_"+side, "gone_SIDE", "t_"+side, "t_SIDE", "/"+side+"/psql", "/SIDE/psql")
	files, _ := filepath.Glob(filepath.Join(dir, side, "out", "*.args"))
	var out []string
	for _, f := range files {
		base := strings.TrimSuffix(f, ".args")
		read := func(ext string) string {
			b, err := os.ReadFile(base + ext)
			if err != nil {
				t.Fatal(err)
			}
			os.Remove(base + ext)
			return strings.TrimSpace(string(b))
		}
		args, id, pwd := read(".args"), read(".id"), read(".pwd")
		var env []string
		for _, kv := range strings.Split(read(".env"), "\n") {
			k, _, _ := strings.Cut(kv, "=")
			if strings.HasPrefix(k, "PG") || strings.HasPrefix(k, "LC_") || slices.Contains([]string{"NEWPGPASSWD",
				"LANG", "LANGUAGE", "HOME", "USER", "LOGNAME", "PATH"}, k) {
				env = append(env, kv)
			}
		}
		slices.Sort(env)
		out = append(out, names.Replace(fmt.Sprintf("%q %s %s %q", strings.Split(args, "\n"), id, pwd, env)))
	}
	slices.Sort(out)
	return out
}

// puppetValue writes params as the attributes of a Puppet resource:
// strings single-quoted, integers and booleans bare, arrays and hashes of
// strings.
func puppetValue(params map[string]any) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(params)) {
		var v string
		switch x := params[k].(type) {
		case string:
			v = puppetString(x)
		case []any:
			var items []string
			for _, e := range x {
				items = append(items, puppetString(e.(string)))
			}
			v = "[" + strings.Join(items, ", ") + "]"
		case map[string]any:
			var kv []string
			for _, hk := range slices.Sorted(maps.Keys(x)) {
				kv = append(kv, puppetString(hk)+" => "+puppetString(x[hk].(string)))
			}
			v = "{" + strings.Join(kv, ", ") + "}"
		default:
			v = fmt.Sprint(x)
		}
		parts = append(parts, k+" => "+v)
	}
	return strings.Join(parts, ", ")
}
