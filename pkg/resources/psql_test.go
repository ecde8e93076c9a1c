package resources

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// pgCluster is a throwaway PostgreSQL cluster owned by the system user
// postgres, listening on a unix socket in its own directory only.
type pgCluster struct {
	dir, bin string
	port     int
}

// startCluster creates and starts a cluster for the test (initdb and
// pg_ctl of Debian's postgresql package) and stops it at the end. Local
// connections authenticate by peer: a role is used by the system user of
// its name only.
func startCluster(t *testing.T) *pgCluster {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		testneed.Missing(t, "PostgreSQL is not installed (apt-get install postgresql)")
	}
	if os.Geteuid() != 0 {
		testneed.Missing(t, "the PostgreSQL tests run the server as the user postgres: they need root")
	}
	pg, err := user.Lookup("postgres")
	if err != nil {
		testneed.Missing(t, "no user postgres (apt-get install postgresql)")
	}
	uid, _ := strconv.Atoi(pg.Uid)
	gid, _ := strconv.Atoi(pg.Gid)
	dir, err := os.MkdirTemp("", "mgmt-psql-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	c := &pgCluster{dir: dir, bin: filepath.Dir(bins[len(bins)-1]), port: 5432}
	c.asPostgres(t, uid, gid, "initdb", "-D", c.data(), "--auth-local=peer", "--auth-host=reject", "-E", "UTF8", "--locale=C")
	opts := fmt.Sprintf("-k %s -c listen_addresses= -p %d", dir, c.port)
	c.asPostgres(t, uid, gid, "pg_ctl", "-D", c.data(), "-l", filepath.Join(dir, "log"), "-o", opts, "-w", "-t", "120", "start")
	t.Cleanup(func() { c.asPostgres(t, uid, gid, "pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "stop") })
	return c
}

func (c *pgCluster) data() string { return filepath.Join(c.dir, "data") }

// asPostgres runs one of the cluster's programs as the user postgres.
func (c *pgCluster) asPostgres(t *testing.T, uid, gid int, prog string, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(c.bin, prog), args...)
	cmd.Dir = c.dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
}

// query runs sql in database db as the superuser and returns the rows,
// one line each.
func (c *pgCluster) query(t *testing.T, db, sql string) string {
	t.Helper()
	pg, _ := user.Lookup("postgres")
	uid, _ := strconv.Atoi(pg.Uid)
	gid, _ := strconv.Atoi(pg.Gid)
	cmd := exec.Command(filepath.Join(c.bin, "psql"), "-h", c.dir, "-p", strconv.Itoa(c.port), "-d", db, "-X", "-A", "-t", "-c", sql)
	cmd.Dir = c.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("psql %q: %v\n%s", sql, err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestPsql applies postgresql:psql resources to one throwaway cluster
// and checks the database.
func TestPsql(t *testing.T) {
	c := startCluster(t)
	t.Run("unless and noop", func(t *testing.T) { testPsqlUnlessAndNoop(t, c) })
	t.Run("onlyif", func(t *testing.T) { testPsqlOnlyIf(t, c) })
	t.Run("refreshonly", func(t *testing.T) { testPsqlRefreshOnly(t, c) })
	t.Run("settings", func(t *testing.T) { testPsqlSettings(t, c) })
	t.Run("failures", func(t *testing.T) { testPsqlFailures(t, c) })
}

// res returns a postgresql:psql resource that connects to the cluster.
func (c *pgCluster) res(t *testing.T, h *harness, name string, edit func(*PsqlRes)) *PsqlRes {
	t.Helper()
	r := newPsql()
	r.ConnectSettings = map[string]string{"PGHOST": c.dir}
	r.Port = c.port
	r.DB = "postgres"
	if edit != nil {
		edit(r)
	}
	return setup(t, h, "postgresql:psql", name, r).(*PsqlRes)
}

// testPsqlUnlessAndNoop creates a role guarded by unless: a noop check
// reports the run without making it, the run creates the role, and the
// next check finds the guard satisfied.
func testPsqlUnlessAndNoop(t *testing.T, c *pgCluster) {
	h := newHarness(t)
	r := c.res(t, h, `CREATE ROLE "app" LOGIN`, func(r *PsqlRes) {
		r.Unless = strp("SELECT 1 FROM pg_roles WHERE rolname = 'app'")
	})
	checkApply(t, r, false, false)
	if got := c.query(t, "postgres", "SELECT count(*) FROM pg_roles WHERE rolname = 'app'"); got != "0" {
		t.Fatalf("noop created the role: %s", got)
	}
	if !strings.Contains(h.logged(), `run "CREATE ROLE \"app\" LOGIN"`) {
		t.Errorf("noop log: %q", h.logged())
	}
	checkApply(t, r, true, false)
	if got := c.query(t, "postgres", "SELECT rolcanlogin FROM pg_roles WHERE rolname = 'app'"); got != "t" {
		t.Fatalf("role app: %q", got)
	}
	checkApply(t, r, true, true)
	checkApply(t, r, false, true)
}

// testPsqlOnlyIf drops a role only while it exists.
func testPsqlOnlyIf(t *testing.T, c *pgCluster) {
	c.query(t, "postgres", "CREATE ROLE gone")
	h := newHarness(t)
	r := c.res(t, h, "drop", func(r *PsqlRes) {
		r.Command = `DROP ROLE "gone"`
		r.OnlyIf = strp("SELECT 1 FROM pg_roles WHERE rolname = 'gone'")
	})
	checkApply(t, r, true, false)
	if got := c.query(t, "postgres", "SELECT count(*) FROM pg_roles WHERE rolname = 'gone'"); got != "0" {
		t.Fatalf("role still there: %s", got)
	}
	checkApply(t, r, true, true)
}

// testPsqlRefreshOnly runs the command on a refresh only, and then once
// (Puppet checks the guards, then refreshes).
func testPsqlRefreshOnly(t *testing.T, c *pgCluster) {
	c.query(t, "postgres", "CREATE TABLE hits (n int)")
	h := newHarness(t)
	r := c.res(t, h, "hit", func(r *PsqlRes) {
		r.Command = "INSERT INTO hits VALUES (1)"
		r.RefreshOnly = true
	})
	checkApply(t, r, true, true)
	checkApply(t, r, false, true)
	h.setRefresh(true)
	checkApply(t, r, false, false)
	if got := c.query(t, "postgres", "SELECT count(*) FROM hits"); got != "0" {
		t.Fatalf("noop ran the command: %s rows", got)
	}
	checkApply(t, r, true, false)
	if got := c.query(t, "postgres", "SELECT count(*) FROM hits"); got != "1" {
		t.Fatalf("after a refresh: %s rows, want 1", got)
	}
	// Without refreshonly and guards, a refreshed resource runs twice:
	// the command is synced, then the resource refreshed.
	twice := c.res(t, h, "twice", func(r *PsqlRes) { r.Command = "INSERT INTO hits VALUES (2)" })
	checkApply(t, twice, true, false)
	if got := c.query(t, "postgres", "SELECT count(*) FROM hits WHERE n = 2"); got != "2" {
		t.Fatalf("a refreshed command ran %s times, want 2", got)
	}
}

// testPsqlSettings checks search_path, db, the environment and the user
// psql runs as: a table made by the user nobody (peer authentication:
// role nobody) in a schema of another database.
func testPsqlSettings(t *testing.T, c *pgCluster) {
	c.query(t, "postgres", "CREATE ROLE nobody LOGIN")
	c.query(t, "postgres", "CREATE DATABASE other OWNER nobody")
	c.query(t, "other", "CREATE SCHEMA s AUTHORIZATION nobody")
	grp, err := user.LookupGroupId(strconv.Itoa(65534))
	if err != nil {
		t.Skip("no group 65534")
	}
	h := newHarness(t)
	r := c.res(t, h, "table", func(r *PsqlRes) {
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
	if got := c.query(t, "other", "SELECT tableowner || ' ' || (SELECT v FROM s.t) FROM pg_tables WHERE tablename = 't'"); got != "nobody from-environment" {
		t.Fatalf("table owner and value: %q", got)
	}
}

// testPsqlFailures checks that a failing guard or command is an error,
// and that a sensitive resource keeps its SQL and psql's output out of
// the error.
func testPsqlFailures(t *testing.T, c *pgCluster) {
	h := newHarness(t)
	bad := c.res(t, h, "bad guard", func(r *PsqlRes) {
		r.Command = "SELECT 1"
		r.Unless = strp("SELECT nothing FROM nowhere")
	})
	if _, err := bad.CheckApply(context.Background(), true); err == nil || !strings.Contains(err.Error(), "error evaluating 'unless' clause") ||
		!strings.Contains(err.Error(), "nowhere") {
		t.Errorf("failing guard: %v", err)
	}
	secret := c.res(t, h, "secret", func(r *PsqlRes) {
		r.Command = "ALTER ROLE nosuchrole PASSWORD 'hunter2'"
		r.Sensitive = true
	})
	_, err := secret.CheckApply(context.Background(), true)
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "nosuchrole") {
		t.Errorf("sensitive failure: %v", err)
	}
	checkApply(t, c.res(t, h, "secret noop", func(r *PsqlRes) { r.Sensitive = true }), false, false)
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
