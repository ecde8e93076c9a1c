// Package cli holds what every tool of the project shares on its command
// line: kong parsing that never exits the process, MGMT_<FLAG> environment
// variables, --version, and the exit-code conventions (0 success, 1 failure,
// 2 usage error).
package cli

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/mgmtpipe/mgmt/internal/statedir"
)

// Version is the project version, set at link time by the Makefile. Left
// "dev", the version is read from the build information the Go toolchain
// puts into every binary (see BuildVersion).
var Version = "dev"

// BuildVersion returns Version, or when no version was set at link time
// (go install, go build), the one of the build information: the module
// version go install records (v1.2.3, or a pseudo-version), else the
// commit the binary was built from (with "-dirty" for uncommitted
// changes), else "dev".
func BuildVersion() string {
	if Version != "dev" {
		return Version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Version
	}
	return buildInfoVersion(bi)
}

func buildInfoVersion(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	var dirty bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev
}

// Exit codes shared by all tools.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitUsage = 2
)

// VersionFlag is embedded in every tool's flag struct.
type VersionFlag struct {
	Version kong.VersionFlag `help:"Print the version and exit." env:"-"`
}

// exitPanic carries kong's requested exit code out of Parse.
type exitPanic struct{ code int }

// A Spec is a tool's command line: its name, the description --help
// prints, and a new value of its flag struct, for kong.
type Spec struct {
	Name        string
	Description string
	Grammar     any
}

// Parser returns the kong parser of s, writing to stdout and stderr; it
// is the one home of the options every tool shares (the manual pages and
// completion are made from the same parser).
func (s Spec) Parser(stdout, stderr io.Writer) (*kong.Kong, error) {
	return kong.New(s.Grammar,
		kong.Name(s.Name),
		kong.Description(s.Description),
		kong.Writers(stdout, stderr),
		kong.Exit(func(c int) { panic(exitPanic{c}) }),
		kong.DefaultEnvars("MGMT"),
		kong.Vars{"version": s.Name + " " + BuildVersion(), "default_prefix": statedir.Help()},
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.ValueFormatter(HelpValue),
	)
}

// Parse parses args into grammar. It returns done=true with the exit code
// when the tool must stop now: after --help or --version (code 0) or on a
// usage error (code 2, message on stderr).
func Parse(name, description string, grammar any, args []string, stdout, stderr io.Writer) (kctx *kong.Context, code int, done bool) {
	defer func() {
		if r := recover(); r != nil {
			ep, ok := r.(exitPanic)
			if !ok {
				panic(r)
			}
			kctx, code, done = nil, ep.code, true
		}
	}()
	parser, err := Spec{name, description, grammar}.Parser(stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return nil, ExitFail, true
	}
	kctx, err = parser.Parse(args)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		fmt.Fprintf(stderr, "run '%s --help' for usage\n", name)
		return nil, ExitUsage, true
	}
	return kctx, ExitOK, false
}

// List splits a comma separated flag value (--seeds, --collect-from) into
// its items, trimmed, dropping empty ones.
func List(s string) []string {
	var out []string
	for _, e := range strings.Split(s, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// TLSFlags are the certificate flags of the tools that reach a TLS world
// cluster. The certificate's common name is the identity the cluster
// knows its holder by: a host's name for mcl-compile and mgmt-apply, a
// member's for mgmt-cluster run.
type TLSFlags struct {
	TLSCert string `name:"tls-cert" help:"PEM certificate signed by the cluster's CA, naming who you are (see mgmt-cluster certs): this host's for mcl-compile and mgmt-apply, a member's for mgmt-cluster run." type:"path"`
	TLSKey  string `name:"tls-key" help:"PEM key of --tls-cert." type:"path"`
	TLSCA   string `name:"tls-ca" help:"PEM CA that signs every certificate of the cluster." type:"path"`
}

// Errorln writes err to w as the lines "TOOL: LINE", one per line of its
// message: a list of errors (graph.ErrorList) prints one error a line,
// each naming the tool, as every other error line does.
func Errorln(w io.Writer, tool string, err error) {
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Fprintf(w, "%s: %s\n", tool, line)
	}
}

// HelpValue is the help text of a flag or argument as --help and the
// manual pages show it: the flag's help, then its default and its
// environment variable. The default is left out when it is empty or false,
// when the help already speaks of it, and when kong shows it as the
// flag's placeholder (--graph="main").
func HelpValue(v *kong.Value) string {
	var extra []string
	shown := v.Flag != nil && v.Flag.PlaceHolder == ""
	if d := v.Default; d != "" && d != "false" && !v.IsBool() && !shown && !strings.Contains(v.Help, "default") {
		extra = append(extra, "default: "+d)
	}
	for _, e := range v.Tag.Envs {
		extra = append(extra, "$"+e)
	}
	if len(extra) == 0 {
		return v.Help
	}
	suffix := "(" + strings.Join(extra, "; ") + ")"
	if h, ok := strings.CutSuffix(v.Help, "."); ok {
		return h + " " + suffix + "."
	}
	if v.Help == "" {
		return suffix
	}
	return v.Help + " " + suffix
}
