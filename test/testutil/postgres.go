package testutil

import (
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

// A Postgres is a throwaway PostgreSQL cluster owned by the system user
// postgres: its data and its unix socket are in Dir (connect with
// PGHOST=Dir and port Port), it listens on no TCP port, and local
// connections authenticate by peer, so a role is used by the system user
// of its name only.
type Postgres struct {
	Dir      string
	Port     int
	bin      string
	uid, gid int
}

// StartPostgres creates and starts a cluster with initdb and pg_ctl of
// Debian's postgresql package, as the user postgres, and stops it when
// the test ends. It needs root.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		testneed.Missing(t, "PostgreSQL is not installed (apt-get install postgresql)")
	}
	NeedRoot(t)
	pg, err := user.Lookup("postgres")
	if err != nil {
		testneed.Missing(t, "no user postgres (apt-get install postgresql)")
	}
	p := &Postgres{Dir: SharedTempDir(t), Port: 5432, bin: filepath.Dir(bins[len(bins)-1])}
	p.uid, _ = strconv.Atoi(pg.Uid)
	p.gid, _ = strconv.Atoi(pg.Gid)
	if err := os.Chown(p.Dir, p.uid, p.gid); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(p.Dir, "data")
	p.run(t, "initdb", "-D", data, "--auth-local=peer", "--auth-host=reject", "-E", "UTF8", "--locale=C")
	opts := fmt.Sprintf("-k %s -c listen_addresses= -p %d", p.Dir, p.Port)
	p.run(t, "pg_ctl", "-D", data, "-l", filepath.Join(p.Dir, "log"), "-o", opts, "-w", "-t", "300", "start")
	t.Cleanup(func() { p.run(t, "pg_ctl", "-D", data, "-m", "immediate", "-w", "stop") })
	return p
}

// run runs one of the cluster's programs as the user postgres and
// returns what it printed.
func (p *Postgres) run(t testing.TB, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(p.bin, prog), args...)
	cmd.Dir = p.Dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(p.uid), Gid: uint32(p.gid)}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Query runs sql in database db as the superuser postgres and returns
// the rows, one line each, fields separated by "|".
func (p *Postgres) Query(t testing.TB, db, sql string) string {
	t.Helper()
	return strings.TrimSpace(p.run(t, "psql", "-h", p.Dir, "-p", strconv.Itoa(p.Port), "-d", db, "-X", "-A", "-t", "-c", sql))
}
