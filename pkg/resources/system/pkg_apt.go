package system

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// pkgState is what a package manager knows about one package.
type pkgState struct {
	installed string   // installed version, "" if not installed
	candidate string   // version an install would pick, "" if none
	versions  []string // every known version

	// PackageKit package IDs: of each version, and of the installed one
	ids         map[string]string
	installedID string
}

// has reports whether version v is known.
func (st pkgState) has(v string) bool {
	for _, x := range st.versions {
		if x == v {
			return true
		}
	}
	return false
}

// pkgOpts are the options of one transaction.
type pkgOpts struct {
	untrusted   bool // allow unauthenticated packages
	nonFree     bool // allow installing non-free packages
	unsupported bool // allow installing unsupported packages
	downgrade   bool // allow versions older than the installed ones
}

// A pkgBackend is one way to query and change the installed packages.
type pkgBackend interface {
	name() string
	// query reports the state of the named packages in one call; unknown
	// packages get a zero pkgState.
	query(ctx context.Context, names []string) (map[string]pkgState, error)
	// refresh updates the package index.
	refresh(ctx context.Context) error
	// apply makes every change in one transaction.
	apply(ctx context.Context, acts []pkgAction, opts pkgOpts) error
	watch(ctx context.Context, running, event func()) error
	close()
}

// aptBackend drives apt-get, apt-cache and dpkg directly.
type aptBackend struct{}

func (b *aptBackend) name() string { return "apt" }
func (b *aptBackend) close()       {}

func runCmd(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 && len(msg) > 400 {
			msg = msg[i+1:]
		}
		return out, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, msg)
	}
	return out, nil
}

func (b *aptBackend) query(ctx context.Context, names []string) (map[string]pkgState, error) {
	out, err := runCmd(ctx, "apt-cache", append([]string{"policy", "--"}, names...)...)
	if err != nil {
		return nil, err
	}
	return parseAptPolicy(out), nil
}

// parseAptPolicy reads the output of apt-cache policy NAME...
func parseAptPolicy(out []byte) map[string]pkgState {
	res := map[string]pkgState{}
	var cur string
	var st pkgState
	inTable := false
	flush := func() {
		if cur != "" {
			res[cur] = st
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		if line[0] != ' ' && strings.HasSuffix(line, ":") {
			flush()
			cur, st, inTable = strings.TrimSuffix(line, ":"), pkgState{}, false
			continue
		}
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "Installed:"):
			st.installed = noneEmpty(strings.TrimSpace(strings.TrimPrefix(t, "Installed:")))
		case strings.HasPrefix(t, "Candidate:"):
			st.candidate = noneEmpty(strings.TrimSpace(strings.TrimPrefix(t, "Candidate:")))
		case t == "Version table:":
			inTable = true
		case inTable:
			f := strings.Fields(strings.TrimPrefix(t, "*** "))
			if len(f) == 2 && !strings.Contains(f[1], "/") {
				st.versions = append(st.versions, f[0])
			}
		}
	}
	flush()
	return res
}

func noneEmpty(s string) string {
	if s == "(none)" {
		return ""
	}
	return s
}

func (b *aptBackend) refresh(ctx context.Context) error {
	_, err := runCmd(ctx, "apt-get", "update", "-q")
	return err
}

func (b *aptBackend) apply(ctx context.Context, acts []pkgAction, opts pkgOpts) error {
	args := []string{"install", "-y", "-q", "--no-install-recommends",
		"-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold"}
	if opts.downgrade {
		args = append(args, "--allow-downgrades")
	}
	if opts.untrusted {
		args = append(args, "--allow-unauthenticated")
	}
	if !opts.nonFree {
		if err := b.checkFree(ctx, acts); err != nil {
			return err
		}
	}
	args = append(args, "--")
	for _, a := range acts {
		switch {
		case a.remove:
			args = append(args, a.name+"-")
		case a.version != "":
			args = append(args, a.name+"="+a.version)
		default:
			args = append(args, a.name)
		}
	}
	_, err := runCmd(ctx, "apt-get", args...)
	return err
}

// checkFree refuses to install packages of a non-free section.
func (b *aptBackend) checkFree(ctx context.Context, acts []pkgAction) error {
	var names []string
	for _, a := range acts {
		if a.remove {
			continue
		}
		n := a.name
		if a.version != "" {
			n += "=" + a.version
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil
	}
	out, err := runCmd(ctx, "apt-cache", append([]string{"show", "--no-all-versions", "--"}, names...)...)
	if err != nil {
		return err
	}
	pkg := ""
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Package: "); ok {
			pkg = v
		}
		if v, ok := strings.CutPrefix(line, "Section: "); ok && strings.HasPrefix(v, "non-free") {
			return fmt.Errorf("package %s is non-free (section %s): set allownonfree to install it", pkg, v)
		}
	}
	return nil
}

// watch follows dpkg's status file (rewritten on every change) and the
// package lists (replaced on every index refresh).
func (b *aptBackend) watch(ctx context.Context, running, event func()) error {
	return watchFiles(ctx, []string{"/var/lib/dpkg/status", "/var/lib/apt/lists/*"}, running, event)
}
