package resources

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestPsql applies postgresql:psql resources to one throwaway cluster
// and checks the database.
func TestPsql(t *testing.T) {
	c := testutil.StartPostgres(t)
	t.Run("unless and noop", func(t *testing.T) { testPsqlUnlessAndNoop(t, c) })
	t.Run("onlyif", func(t *testing.T) { testPsqlOnlyIf(t, c) })
	t.Run("refreshonly", func(t *testing.T) { testPsqlRefreshOnly(t, c) })
	t.Run("settings", func(t *testing.T) { testPsqlSettings(t, c) })
	t.Run("failures", func(t *testing.T) { testPsqlFailures(t, c) })
}

// psqlRes returns a postgresql:psql resource that connects to the cluster.
func psqlRes(t *testing.T, h *harness, c *testutil.Postgres, name string, edit func(*PsqlRes)) *PsqlRes {
	t.Helper()
	r := newPsql()
	r.ConnectSettings = map[string]string{"PGHOST": c.Dir}
	r.Port = c.Port
	r.DB = "postgres"
	if edit != nil {
		edit(r)
	}
	return setup(t, h, "postgresql:psql", name, r).(*PsqlRes)
}

// testPsqlUnlessAndNoop creates a role guarded by unless: a noop check
// reports the run without making it, the run creates the role, and the
// next check finds the guard satisfied.
func testPsqlUnlessAndNoop(t *testing.T, c *testutil.Postgres) {
	h := newHarness(t)
	r := psqlRes(t, h, c, `CREATE ROLE "app" LOGIN`, func(r *PsqlRes) {
		r.Unless = strp("SELECT 1 FROM pg_roles WHERE rolname = 'app'")
	})
	checkApply(t, r, false, false)
	if got := c.Query(t, "postgres", "SELECT count(*) FROM pg_roles WHERE rolname = 'app'"); got != "0" {
		t.Fatalf("noop created the role: %s", got)
	}
	if !strings.Contains(h.logged(), `run "CREATE ROLE \"app\" LOGIN"`) {
		t.Errorf("noop log: %q", h.logged())
	}
	checkApply(t, r, true, false)
	if got := c.Query(t, "postgres", "SELECT rolcanlogin FROM pg_roles WHERE rolname = 'app'"); got != "t" {
		t.Fatalf("role app: %q", got)
	}
	checkApply(t, r, true, true)
	checkApply(t, r, false, true)
}

// testPsqlOnlyIf drops a role only while it exists.
func testPsqlOnlyIf(t *testing.T, c *testutil.Postgres) {
	c.Query(t, "postgres", "CREATE ROLE gone")
	h := newHarness(t)
	r := psqlRes(t, h, c, "drop", func(r *PsqlRes) {
		r.Command = `DROP ROLE "gone"`
		r.OnlyIf = strp("SELECT 1 FROM pg_roles WHERE rolname = 'gone'")
	})
	checkApply(t, r, true, false)
	if got := c.Query(t, "postgres", "SELECT count(*) FROM pg_roles WHERE rolname = 'gone'"); got != "0" {
		t.Fatalf("role still there: %s", got)
	}
	checkApply(t, r, true, true)
}

// testPsqlRefreshOnly runs the command on a refresh only, and then once
// (Puppet checks the guards, then refreshes).
func testPsqlRefreshOnly(t *testing.T, c *testutil.Postgres) {
	c.Query(t, "postgres", "CREATE TABLE hits (n int)")
	h := newHarness(t)
	r := psqlRes(t, h, c, "hit", func(r *PsqlRes) {
		r.Command = "INSERT INTO hits VALUES (1)"
		r.RefreshOnly = true
	})
	checkApply(t, r, true, true)
	checkApply(t, r, false, true)
	h.setRefresh(true)
	checkApply(t, r, false, false)
	if got := c.Query(t, "postgres", "SELECT count(*) FROM hits"); got != "0" {
		t.Fatalf("noop ran the command: %s rows", got)
	}
	checkApply(t, r, true, false)
	if got := c.Query(t, "postgres", "SELECT count(*) FROM hits"); got != "1" {
		t.Fatalf("after a refresh: %s rows, want 1", got)
	}
	// Without refreshonly and guards, a refreshed resource runs twice:
	// the command is synced, then the resource refreshed.
	twice := psqlRes(t, h, c, "twice", func(r *PsqlRes) { r.Command = "INSERT INTO hits VALUES (2)" })
	checkApply(t, twice, true, false)
	if got := c.Query(t, "postgres", "SELECT count(*) FROM hits WHERE n = 2"); got != "2" {
		t.Fatalf("a refreshed command ran %s times, want 2", got)
	}
}

// testPsqlSettings checks search_path, db, the environment and the user
// psql runs as: a table made by the user nobody (peer authentication:
// role nobody) in a schema of another database.
func testPsqlSettings(t *testing.T, c *testutil.Postgres) {
	c.Query(t, "postgres", "CREATE ROLE nobody LOGIN")
	c.Query(t, "postgres", "CREATE DATABASE other OWNER nobody")
	c.Query(t, "other", "CREATE SCHEMA s AUTHORIZATION nobody")
	grp, err := user.LookupGroupId(strconv.Itoa(65534))
	if err != nil {
		t.Skip("no group 65534")
	}
	h := newHarness(t)
	r := psqlRes(t, h, c, "table", func(r *PsqlRes) {
		r.Command = "CREATE TABLE t (v text); INSERT INTO t VALUES (current_setting('application_name'))"
		r.PsqlUser, r.PsqlGroup = "nobody", grp.Name
		r.ConnectSettings["PGDATABASE"] = "postgres"
		r.ConnectSettings["PGAPPNAME"] = "from-settings"
		r.Environment = map[string]string{"PGAPPNAME": "from-environment"}
		r.DB = "other"
		r.SearchPath = []string{"s"}
		r.Cwd = "/"
	})
	checkApply(t, r, true, false)
	if got := c.Query(t, "other", "SELECT tableowner || ' ' || (SELECT v FROM s.t) FROM pg_tables WHERE tablename = 't'"); got != "nobody from-environment" {
		t.Fatalf("table owner and value: %q", got)
	}
}

// testPsqlFailures checks that a failing guard or command is an error,
// and that a sensitive resource keeps its SQL and psql's output out of
// the error.
func testPsqlFailures(t *testing.T, c *testutil.Postgres) {
	h := newHarness(t)
	bad := psqlRes(t, h, c, "bad guard", func(r *PsqlRes) {
		r.Command = "SELECT 1"
		r.Unless = strp("SELECT nothing FROM nowhere")
	})
	if _, err := bad.CheckApply(context.Background(), true); err == nil || !strings.Contains(err.Error(), "error evaluating 'unless' clause") ||
		!strings.Contains(err.Error(), "nowhere") {
		t.Errorf("failing guard: %v", err)
	}
	secret := psqlRes(t, h, c, "secret", func(r *PsqlRes) {
		r.Command = "ALTER ROLE nosuchrole PASSWORD 'hunter2'"
		r.Sensitive = true
	})
	_, err := secret.CheckApply(context.Background(), true)
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "nosuchrole") {
		t.Errorf("sensitive failure: %v", err)
	}
	checkApply(t, psqlRes(t, h, c, "secret noop", func(r *PsqlRes) { r.Sensitive = true }), false, false)
	if strings.Contains(h.logged(), "secret noop") {
		t.Errorf("a sensitive command was logged: %q", h.logged())
	}
}

// TestPsqlLeadingCount reads counts as Ruby's to_i reads psql's output.
func TestPsqlLeadingCount(t *testing.T) {
	for in, want := range map[string]int64{"     1\n\n": 1, "0\n": 0, "": 0, "WARNING: x\n 3": 0, " 1_000 ": 1000,
		"12abc": 12, "-4": -4, "1__2": 1, "_1": 0, "99999999999999999999999": 1 << 62} {
		b := newTailBuffer(maxOutput)
		b.Write([]byte(in))
		if got, err := leadingCount(b); err != nil || got != want {
			t.Errorf("leadingCount(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}

// TestPsqlEnvAndArgs checks psql's environment and argument list without
// a server.
func TestPsqlEnvAndArgs(t *testing.T) {
	env := psqlEnv([]string{"HOME=/root", "LANG=de_DE.UTF-8", "LC_TIME=x", "PATH=/bin", "KEEP=1"},
		map[string]string{"PGHOST": "/run/pg", "PGPORT": "1"}, map[string]string{"PGPORT": "2", "HOME": "/h"})
	if got := strings.Join(env, " "); got != "HOME=/h KEEP=1 LANG=C LC_ALL=C PATH=/bin PGHOST=/run/pg PGPORT=2" {
		t.Errorf("env: %s", got)
	}
	r := newPsql()
	r.SetName("n")
	r.PsqlPath, r.PsqlUser, r.PsqlGroup = "/usr/bin/psql", strconv.Itoa(os.Geteuid()), ""
	r.DB, r.Port, r.SearchPath = "d", 5433, []string{"a", "b"}
	cmd, err := r.psqlCommand(context.Background(), `SELECT "x"`)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/usr/bin/psql", "-d", "d", "-p", "5433", "-t", "-X", "-c", `set search_path to a,b; SELECT "x"`}
	if fmt.Sprint(cmd.Args) != fmt.Sprint(want) || cmd.Dir != "/tmp" {
		t.Errorf("args %q in %s, want %q in /tmp", cmd.Args, cmd.Dir, want)
	}
}
