package system

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"

	"github.com/mgmtpipe/mgmt/internal/account"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("gsettings", func() engine.Res { return &GsettingsRes{} })
}

// GsettingsRes keeps one GSettings key (stored by dconf) of a user at a
// value, through the gsettings tool run as that user on the user's
// session bus. See the package documentation.
type GsettingsRes struct {
	traits.Base

	// Schema is the schema id, or "schema:path" for a relocatable schema;
	// with Key, it defaults to the first word of the name. A collected
	// resource names its key by its name alone.
	Schema string `lang:"schema" yaml:"schema" collect:"local"`
	// Key is the key; it defaults to the second word of the name.
	Key string `lang:"key" yaml:"key" collect:"local"`
	// Type is how Value is written: bool, str, int, or custom (Value is
	// GVariant text, as gsettings prints it).
	Type string `lang:"type" yaml:"type"`
	// Value is the wanted value: a bool, an int or a str, per Type.
	Value any `lang:"value" yaml:"value"`
	// User is whose setting it is (default: the engine's user).
	User string `lang:"user" yaml:"user" collect:"local"`
	// Group is the group gsettings runs as (default: the user's primary
	// group).
	Group string `lang:"group" yaml:"group" collect:"local"`

	init *engine.Init
}

// Default returns a gsettings resource.
func (r *GsettingsRes) Default() engine.Res { return &GsettingsRes{} }

// target returns the schema and the key.
func (r *GsettingsRes) target() (string, string) {
	if r.Schema == "" && r.Key == "" {
		s, k, _ := strings.Cut(r.Name(), " ")
		return s, k
	}
	return r.Schema, r.Key
}

// Validate checks the schema, the key, the type and the value.
func (r *GsettingsRes) Validate() error {
	schema, key := r.target()
	if r.Schema == "" && r.Key == "" && strings.Count(r.Name(), " ") != 1 {
		return fmt.Errorf("name %q: without schema and key, want \"SCHEMA KEY\" (one space)", r.Name())
	}
	for what, v := range map[string]string{"schema": schema, "key": key} {
		if v == "" || strings.HasPrefix(v, "-") || strings.ContainsAny(v, " \t\n\x00") {
			return fmt.Errorf("%s %q is empty, starts with '-' or holds white space", what, v)
		}
	}
	_, err := r.text()
	return err
}

// text returns the wanted value as GVariant text, for gsettings set.
func (r *GsettingsRes) text() (string, error) {
	switch r.Type {
	case "bool":
		if b, ok := r.Value.(bool); ok {
			return strconv.FormatBool(b), nil
		}
	case "int":
		if n, ok := intOf(r.Value); ok {
			return strconv.FormatInt(n, 10), nil
		}
	case "str":
		if s, ok := r.Value.(string); ok {
			return gvariantString(s), nil
		}
	case "custom":
		if s, ok := r.Value.(string); ok && s != "" && !strings.ContainsAny(s, "\n\x00") {
			return s, nil
		}
		return "", fmt.Errorf("value: type custom wants one line of GVariant text, got %#v", r.Value)
	default:
		return "", fmt.Errorf("type: got %q, want bool, str, int or custom", r.Type)
	}
	return "", fmt.Errorf("value: got %#v, want a %s", r.Value, r.Type)
}

// intOf reads an integer as the decoder or a program may hand it over.
func intOf(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case int:
		return int64(n), true
	case int64:
		return n, true
	case float64:
		return int64(n), float64(int64(n)) == n
	}
	return 0, false
}

// gvariantString writes s as a GVariant string literal.
func gvariantString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, c := range s {
		switch c {
		case '\'', '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\u%04x`, c)
			} else {
				b.WriteRune(c)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// Init keeps the handle.
func (r *GsettingsRes) Init(init *engine.Init) error {
	r.init = init
	return nil
}

// Cleanup does nothing.
func (r *GsettingsRes) Cleanup() error { return nil }

// gsettingsEnv is the environment gsettings gets from the engine's, when
// set: where to find schemas.
var gsettingsEnv = []string{"PATH", "GSETTINGS_SCHEMA_DIR", "XDG_DATA_DIRS", "LANG"}

// command returns gsettings with args, run as the user (and group) on the
// user's session bus, unix:path=/run/user/UID/bus.
func (r *GsettingsRes) command(ctx context.Context, args ...string) (*exec.Cmd, error) {
	u, err := lookupUser(r.User)
	if err != nil {
		return nil, err
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	if r.Group != "" {
		g, err := account.LookupGroup(r.Group)
		if err != nil {
			return nil, fmt.Errorf("group %s: %v", r.Group, err)
		}
		gid, _ = strconv.ParseUint(g.Gid, 10, 32)
	}
	cmd := exec.CommandContext(ctx, "gsettings", args...)
	run := "/run/user/" + u.Uid
	cmd.Env = []string{"HOME=" + u.HomeDir, "USER=" + u.Username, "XDG_RUNTIME_DIR=" + run,
		"DBUS_SESSION_BUS_ADDRESS=unix:path=" + run + "/bus"}
	for _, k := range gsettingsEnv {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if int(uid) != os.Getuid() || int(gid) != os.Getgid() {
		cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		gids, _ := account.GroupIDs(u) // the user's groups, never the engine's
		for _, g := range gids {
			if n, err := strconv.ParseUint(g, 10, 32); err == nil {
				cred.Groups = append(cred.Groups, uint32(n))
			}
		}
		cmd.SysProcAttr.Credential = cred
	}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd, nil
}

// lookupUser returns the named user, or the engine's.
func lookupUser(name string) (*user.User, error) {
	if name == "" {
		u, err := user.Current()
		if err != nil {
			return nil, fmt.Errorf("current user: %v", err)
		}
		return u, nil
	}
	u, err := account.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("user %s: %v", name, err)
	}
	return u, nil
}

// run runs gsettings and returns its output without the final newline.
func (r *GsettingsRes) run(ctx context.Context, args ...string) (string, error) {
	cmd, err := r.command(ctx, args...)
	if err != nil {
		return "", err
	}
	var out, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("gsettings %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

// Watch runs gsettings monitor on the key, as the user, and reports each
// line it prints. The monitor subscribes a moment after it starts: a
// change in that moment is found by the engine's periodic recheck.
func (r *GsettingsRes) Watch(ctx context.Context) error {
	schema, key := r.target()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd, err := r.command(ctx, "monitor", schema, key)
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("gsettings monitor: %v", err)
	}
	r.init.Running()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		r.init.Event()
	}
	err = cmd.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return fmt.Errorf("gsettings monitor %s %s ended: %v: %s", schema, key, err, strings.TrimSpace(stderr.String()))
}

// CheckApply reads the key with gsettings get and sets it when it differs.
func (r *GsettingsRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	schema, key := r.target()
	want, err := r.text()
	if err != nil {
		return false, err
	}
	have, err := r.run(ctx, "get", schema, key)
	if err != nil {
		return false, err
	}
	same, err := r.same(have)
	if err != nil || same {
		return same, err
	}
	if !apply {
		return false, nil
	}
	if r.init != nil {
		r.init.Logf("%s: %s %s: %s -> %s", r, schema, key, have, want)
	}
	_, err = r.run(ctx, "set", schema, key, want)
	return false, err
}

// same compares what gsettings printed with the wanted value: as a
// value for bool, int and str (so quoting and an integer's type prefix do
// not matter), as text for custom.
func (r *GsettingsRes) same(have string) (bool, error) {
	switch r.Type {
	case "bool":
		return have == strconv.FormatBool(r.Value.(bool)), nil
	case "int":
		f := strings.Fields(have)
		if len(f) == 0 {
			return false, nil
		}
		n, err := strconv.ParseInt(f[len(f)-1], 10, 64)
		want, _ := intOf(r.Value)
		return err == nil && n == want, nil
	case "str":
		s, err := parseGVariantString(have)
		if err != nil {
			return false, fmt.Errorf("reading %s: %v", have, err)
		}
		return s == r.Value.(string), nil
	}
	return have == r.Value.(string), nil
}

// parseGVariantString reads a GVariant string literal ('...' or "...",
// with backslash escapes) as gsettings prints it.
func parseGVariantString(s string) (string, error) {
	if len(s) < 2 || (s[0] != '\'' && s[0] != '"') || s[len(s)-1] != s[0] {
		return "", errors.New("not a quoted string")
	}
	body := s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			return "", errors.New("a backslash ends the string")
		}
		switch e := body[i]; e {
		case 'n', 't', 'r', 'b', 'f', 'v':
			b.WriteByte(map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', 'b': '\b', 'f': '\f', 'v': '\v'}[e])
		case 'u', 'U':
			n := map[byte]int{'u': 4, 'U': 8}[e]
			if i+1+n > len(body) {
				return "", errors.New("short unicode escape")
			}
			v, err := strconv.ParseUint(body[i+1:i+1+n], 16, 32)
			if err != nil {
				return "", fmt.Errorf("unicode escape: %v", err)
			}
			b.WriteRune(rune(v))
			i += n
		default:
			b.WriteByte(e)
		}
	}
	return b.String(), nil
}

// Cmp compares two gsettings resources.
func (r *GsettingsRes) Cmp(other engine.Res) error {
	o, ok := other.(*GsettingsRes)
	if !ok {
		return fmt.Errorf("not a gsettings resource")
	}
	s1, k1 := r.target()
	s2, k2 := o.target()
	t1, _ := r.text()
	t2, _ := o.text()
	if s1 != s2 || k1 != k2 || r.Type != o.Type || t1 != t2 || r.User != o.User || r.Group != o.Group {
		return fmt.Errorf("schema, key, type, value, user or group differ")
	}
	return nil
}
