package resources

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/mgmtpipe/mgmt/internal/account"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("postgresql:psql", func() engine.Res { return newPsql() })
}

func newPsql() *PsqlRes {
	return &PsqlRes{PsqlUser: "postgres", PsqlGroup: "postgres", PsqlPath: "psql", Cwd: "/tmp"}
}

// PsqlRes runs an SQL command with psql, as Puppet's postgresql_psql
// does: when its guards let it, and on a refresh. See the package
// documentation.
type PsqlRes struct {
	traits.Base
	traits.Refreshable

	init *engine.Init

	// Command is the SQL to run; it defaults to the resource name.
	Command string `lang:"command" yaml:"command"`
	// Unless is a query: the command does not run when it returns rows.
	Unless *string `lang:"unless" yaml:"unless"`
	// OnlyIf is a query: the command runs only when it returns rows.
	OnlyIf *string `lang:"onlyif" yaml:"onlyif"`
	// DB is the database psql connects to (its -d); empty leaves it to
	// psql (PGDATABASE, or the user's name).
	DB string `lang:"db" yaml:"db"`
	// Port is the server's port (psql's -p); 0 leaves it to psql.
	Port int `lang:"port" yaml:"port"`
	// SearchPath, when not empty, is set as the schema search path
	// before each SQL text ("set search_path to A,B; ").
	SearchPath []string `lang:"search_path" yaml:"search_path"`
	// PsqlUser is the system user psql runs as.
	PsqlUser string `lang:"psql_user" yaml:"psql_user"`
	// PsqlGroup is the group psql runs as; empty is the user's primary
	// group.
	PsqlGroup string `lang:"psql_group" yaml:"psql_group"`
	// PsqlPath is the psql program: a path, or a name looked up in the
	// PATH psql gets.
	PsqlPath string `lang:"psql_path" yaml:"psql_path"`
	// ConnectSettings are environment variables for psql (PGHOST,
	// PGPASSWORD, ...).
	ConnectSettings map[string]string `lang:"connect_settings" yaml:"connect_settings"`
	// Environment holds more environment variables for psql; they win
	// over ConnectSettings.
	Environment map[string]string `lang:"environment" yaml:"environment"`
	// Cwd is the absolute directory psql runs in.
	Cwd string `lang:"cwd" yaml:"cwd"`
	// RefreshOnly runs the command only when a refresh notification
	// arrives (the guards still decide).
	RefreshOnly bool `lang:"refreshonly" yaml:"refreshonly"`
	// Sensitive keeps the SQL texts and psql's output out of every
	// message and log line.
	Sensitive bool `lang:"sensitive" yaml:"sensitive"`
}

// Collectable is false: an exported SQL command would run with the
// collecting host's database rights.
func (obj *PsqlRes) Collectable() bool { return false }

// Default returns a postgresql:psql resource with its defaults.
func (obj *PsqlRes) Default() engine.Res { return newPsql() }

// Validate checks the parameters; no message quotes an SQL text.
func (obj *PsqlRes) Validate() error {
	if obj.PsqlUser == "" {
		return fmt.Errorf("psql_user is empty")
	}
	if obj.PsqlPath == "" || strings.ContainsRune(obj.PsqlPath, 0) {
		return fmt.Errorf("psql_path must be a program name or path")
	}
	if !filepath.IsAbs(obj.Cwd) {
		return fmt.Errorf("cwd %q must be absolute", obj.Cwd)
	}
	if obj.Port < 0 || obj.Port > 65535 {
		return fmt.Errorf("port %d is not a port number", obj.Port)
	}
	texts := map[string]string{"command": obj.command(), "db": obj.DB, "search_path": strings.Join(obj.SearchPath, ",")}
	if obj.Unless != nil {
		texts["unless"] = *obj.Unless
	}
	if obj.OnlyIf != nil {
		texts["onlyif"] = *obj.OnlyIf
	}
	for _, k := range slices.Sorted(maps.Keys(texts)) {
		if strings.ContainsRune(texts[k], 0) {
			return fmt.Errorf("%s holds a NUL byte, which no argument can carry", k)
		}
	}
	for _, env := range []map[string]string{obj.ConnectSettings, obj.Environment} {
		for _, k := range slices.Sorted(maps.Keys(env)) {
			if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(env[k], 0) {
				return fmt.Errorf("invalid environment variable %q", k)
			}
		}
	}
	return nil
}

// Init keeps the handle.
func (obj *PsqlRes) Init(init *engine.Init) error {
	obj.init = init
	return nil
}

// Cleanup does nothing.
func (obj *PsqlRes) Cleanup() error { return nil }

// Watch does not follow the database: it ends at once, so that the engine
// knows that no event reports a change; the periodic recheck runs the
// guards again (as Puppet does at every run).
func (obj *PsqlRes) Watch(ctx context.Context) error { return nil }

// CheckApply runs the command when the guards say so, as Puppet does in
// one run: the command is due unless onlyif returns no rows, unless
// returns rows, or refreshonly is set; after that, a refresh checks the
// guards again and runs the command once more when they let it.
func (obj *PsqlRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	refresh := obj.init != nil && obj.init.Refresh()
	if !apply {
		due, err := obj.due(ctx, refresh)
		if err != nil || !due {
			return err == nil, err
		}
		obj.logf("run %s", obj.quoted(obj.command()))
		return false, nil
	}
	passes := []bool{false}
	if refresh {
		passes = append(passes, true)
	}
	ran := false
	for _, refreshing := range passes {
		due, err := obj.due(ctx, refreshing)
		if err != nil {
			return false, err
		}
		if !due {
			continue
		}
		out, status, err := obj.psql(ctx, obj.command())
		if err != nil {
			return false, err
		}
		if status != 0 {
			return false, fmt.Errorf("error executing SQL; psql exited with status %d: %s", status, obj.shown(out))
		}
		ran = true
		obj.logf("ran %s", obj.quoted(obj.command()))
	}
	return !ran, nil
}

// due reports whether the command is to run: onlyif first (no rows: no),
// then unless (rows: no), then refreshonly (no, unless refreshing). A
// guard psql fails on is an error.
func (obj *PsqlRes) due(ctx context.Context, refreshing bool) (bool, error) {
	for _, g := range []struct {
		name string
		sql  *string
		want bool
	}{{"onlyif", obj.OnlyIf, true}, {"unless", obj.Unless, false}} {
		if g.sql == nil {
			continue
		}
		out, status, err := obj.psql(ctx, "SELECT COUNT(*) FROM ("+*g.sql+") count")
		if err != nil {
			return false, err
		}
		if status != 0 {
			return false, fmt.Errorf("error evaluating '%s' clause, psql exited with status %d: %s", g.name, status, obj.shown(out))
		}
		n, err := leadingCount(out)
		if err != nil {
			return false, fmt.Errorf("'%s' clause: %v", g.name, err)
		}
		if obj.init != nil && obj.init.Debug && obj.init.Log != nil {
			obj.init.Log.Debug(fmt.Sprintf("found %d row(s) executing '%s' clause", n, g.name))
		}
		if (n > 0) != g.want {
			return false, nil
		}
	}
	return refreshing || !obj.RefreshOnly, nil
}

// psql runs psql with one SQL text and returns what it printed (standard
// output and error through one pipe) and its exit status; err is set when
// psql could not run or was killed.
func (obj *PsqlRes) psql(ctx context.Context, sql string) (*tailBuffer, int, error) {
	cmd, err := obj.psqlCommand(ctx, sql)
	if err != nil {
		return nil, 0, err
	}
	out := newTailBuffer(maxOutput)
	cmd.Stdout, cmd.Stderr = out, out
	err = runCommand(cmd)
	if ee, ok := err.(*exec.ExitError); ok && ee.Exited() {
		return out, ee.ExitCode(), nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0, fmt.Errorf("psql: %v", ctx.Err())
		}
		return nil, 0, fmt.Errorf("psql: %v", err)
	}
	return out, 0, nil
}

// psqlCommand builds the psql command for one SQL text: the argument list
// "PSQL [-d DB] [-p PORT] -t -X -c SQL", run as psql_user and psql_group
// in cwd, with the environment described in the package documentation.
func (obj *PsqlRes) psqlCommand(ctx context.Context, sql string) (*exec.Cmd, error) {
	if len(obj.SearchPath) > 0 {
		sql = "set search_path to " + strings.Join(obj.SearchPath, ",") + "; " + sql
	}
	args := []string{}
	if obj.DB != "" {
		args = append(args, "-d", obj.DB)
	}
	if obj.Port != 0 {
		args = append(args, "-p", strconv.Itoa(obj.Port))
	}
	args = append(args, "-t", "-X", "-c", sql)
	env := psqlEnv(os.Environ(), obj.ConnectSettings, obj.Environment)
	prog, err := lookPathEnv(obj.PsqlPath, env, obj.Cwd)
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Args[0] = obj.PsqlPath
	cmd.Dir = obj.Cwd
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cred, err := psqlCredential(obj.PsqlUser, obj.PsqlGroup)
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr.Credential = cred
	cmd.Cancel = groupCancel(cmd, syscall.SIGTERM)
	cmd.WaitDelay = killGrace
	return cmd, nil
}

// psqlEnv returns psql's environment: base without the user and locale
// variables, with LANG=C and LC_ALL=C, then the connection settings and
// the environment settings, each overriding what came before.
func psqlEnv(base []string, settings, extra map[string]string) []string {
	m := map[string]string{}
	for _, kv := range puppetEnv(base) {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	for _, e := range []map[string]string{settings, extra} {
		for k, v := range e {
			m[k] = v
		}
	}
	out := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, k+"="+m[k])
	}
	return out
}

// lookPathEnv finds prog as a shell would with the PATH of env: a name
// with a slash is used as it is (relative to dir), another is looked up
// in each directory of PATH (an empty entry is dir).
func lookPathEnv(prog string, env []string, dir string) (string, error) {
	if strings.Contains(prog, "/") {
		if !filepath.IsAbs(prog) {
			prog = filepath.Join(dir, prog)
		}
		return prog, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = dir
		}
		p := filepath.Join(d, prog)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("psql_path %q: not found in PATH %q", prog, path)
}

// psqlCredential returns the identity psql runs with, as Puppet changes
// to it: the group (the user's primary group when empty), then the user
// with the user's supplementary groups. Nothing changes for the engine's
// own user and group; for its own user with another group, only the
// group changes.
func psqlCredential(userName, group string) (*syscall.Credential, error) {
	uid, err := lookupUID(userName)
	if err != nil {
		return nil, fmt.Errorf("psql_user: %v", err)
	}
	var gid int
	if group == "" {
		u, err := account.LookupID(strconv.Itoa(uid))
		if err != nil {
			return nil, fmt.Errorf("psql_user %q: %v", userName, err)
		}
		gid, _ = strconv.Atoi(u.Gid)
	} else if gid, err = lookupGID(group); err != nil {
		return nil, fmt.Errorf("psql_group: %v", err)
	}
	if uid == os.Geteuid() {
		if gid == os.Getegid() {
			return nil, nil
		}
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, nil
	}
	u, err := account.LookupID(strconv.Itoa(uid))
	if err != nil {
		return nil, fmt.Errorf("psql_user %q: %v", userName, err)
	}
	ids, err := account.GroupIDs(u)
	if err != nil {
		return nil, fmt.Errorf("psql_user %q: groups: %v", userName, err)
	}
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
	for _, s := range ids {
		if n, err := strconv.ParseUint(s, 10, 32); err == nil {
			cred.Groups = append(cred.Groups, uint32(n))
		}
	}
	sort.Slice(cred.Groups, func(i, j int) bool { return cred.Groups[i] < cred.Groups[j] })
	return cred, nil
}

// leadingCount reads the number psql printed for a guard's count as Ruby's
// to_i reads the output with its white space stripped: optional sign,
// digits (single underscores between them allowed); no number is 0.
func leadingCount(out *tailBuffer) (int64, error) {
	s := strings.TrimLeft(string(out.head), " \t\n\v\f\r\x00")
	if s == "" && out.total > int64(len(out.head)) {
		return 0, fmt.Errorf("psql printed more than %d bytes of white space", len(out.head))
	}
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' && i > 0 && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' && s[i-1] != '_' {
			continue
		}
		if c < '0' || c > '9' {
			break
		}
		if n > (1<<62)/10 {
			n = 1 << 62 // large enough: only the sign matters
			continue
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

// command is the SQL command: Command, or the resource name.
func (obj *PsqlRes) command() string {
	if obj.Command != "" {
		return obj.Command
	}
	return obj.Name()
}

// quoted renders an SQL text for a message, or says it is sensitive.
func (obj *PsqlRes) quoted(sql string) string {
	if obj.Sensitive {
		return "the SQL command (sensitive: not shown)"
	}
	return strconv.Quote(sql)
}

// shown renders psql's output for an error message: its end, or a note
// when the resource is sensitive (psql repeats parts of the SQL).
func (obj *PsqlRes) shown(out *tailBuffer) string {
	if obj.Sensitive {
		return "(output not shown: the resource is sensitive)"
	}
	return strconv.Quote(strings.TrimSpace(out.last(maxLogOutput)))
}

// logf logs through the engine, when there is one.
func (obj *PsqlRes) logf(format string, v ...any) {
	if obj.init != nil {
		obj.init.Logf(format, v...)
	}
}

// Cmp compares two postgresql:psql resources.
func (obj *PsqlRes) Cmp(r engine.Res) error {
	if _, ok := r.(*PsqlRes); !ok {
		return fmt.Errorf("not a %T", obj)
	}
	return cmpParams(obj, r)
}
