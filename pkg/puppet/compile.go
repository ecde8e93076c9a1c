package puppet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/internal/bounded"
	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/eval"
)

// Engines that can compile a manifest.
const (
	EngineAuto   = "auto"
	EngineNative = "native"
	EnginePuppet = "puppet"
)

// A Source says what to compile and how.
type Source struct {
	Manifest   string // a .pp file
	Code       string // inline code (when Manifest is empty)
	Agent      bool   // fetch the catalog from the Puppet server
	Engine     string // auto, native or puppet
	Certname   string // node name; default: the fqdn fact / Puppet's certname
	PuppetConf string // puppet.conf to use
	ModulePath []string
	// Environment is the Puppet environment to compile in (real Puppet:
	// its modules and Hiera data); empty: Puppet's configured one.
	Environment string
	Facts       map[string]any // native engine; nil: the built-in fact set
	Log         func(string)   // compiler messages (notice(), ...)
}

// PuppetPath returns the path of the installed puppet command, or "".
func PuppetPath() string {
	p, err := exec.LookPath("puppet")
	if err != nil {
		return ""
	}
	return p
}

// ResolveEngine turns auto into native or puppet.
func ResolveEngine(e string) string {
	if e == "" || e == EngineAuto {
		if PuppetPath() != "" {
			return EnginePuppet
		}
		return EngineNative
	}
	return e
}

// A Result is a compiled catalog and what went into it.
type Result struct {
	Catalog *catalog.Catalog
	// Read lists the files the compilation read (for --watch; the
	// native engine lists its manifests and templates too).
	Read []string
	// Env is how pippet's Puppet must start to see what the compilation
	// saw: its module path, environment and puppet.conf.
	Env PuppetEnv
	// ModulePath is the module path the native engine found the modules
	// in (nil when Puppet compiled: only Puppet knows its own).
	ModulePath []string
}

// Compile compiles the source to a catalog with the chosen engine. A
// manifest that cannot be read is an error with either engine.
func Compile(ctx context.Context, src Source) (*Result, error) {
	engine := ResolveEngine(src.Engine)
	if src.Manifest != "" {
		// both engines must refuse a manifest they cannot read (Puppet
		// compiles a missing one to an empty catalog)
		if err := readable(src.Manifest); err != nil {
			return nil, err
		}
	}
	env := NewPuppetEnv(src.ModulePath, src.Environment, src.PuppetConf)
	if src.Agent {
		if PuppetPath() == "" {
			return nil, fmt.Errorf("--agent needs Puppet installed")
		}
		return compileAgent(ctx, src, env)
	}
	switch engine {
	case EngineNative:
		return compileNative(ctx, src, env)
	case EnginePuppet:
		if PuppetPath() == "" {
			return nil, fmt.Errorf("--engine puppet: puppet is not installed (use --engine native)")
		}
		return compilePuppet(ctx, src, env)
	}
	return nil, fmt.Errorf("unknown engine %q, want auto, native or puppet", src.Engine)
}

// readable checks that a manifest can be opened and is not a directory.
func readable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%s is a directory, want a manifest file", path)
	}
	return nil
}

func compileNative(ctx context.Context, src Source, env PuppetEnv) (*Result, error) {
	file, code := "<code>", src.Code
	res := &Result{}
	var conf map[string]string
	if src.PuppetConf != "" {
		var err error
		if conf, err = readPuppetConf(src.PuppetConf); err != nil {
			return nil, err
		}
		res.Read = append(res.Read, src.PuppetConf)
		if src.Certname == "" {
			src.Certname = conf["certname"]
		}
	}
	penv, err := findEnvironment(src, conf, DefaultEnvironmentPath)
	if err != nil {
		return nil, err
	}
	if ec := filepath.Join(penv.dir, "environment.conf"); penv.dir != "" && readable(ec) == nil {
		res.Read = append(res.Read, ec)
	}
	if src.Manifest != "" {
		b, err := bounded.ReadFile(src.Manifest)
		if tl := (*bounded.TooLarge)(nil); errors.As(err, &tl) {
			return nil, &Error{Pos: src.Manifest + ":1:1", Msg: tl.Reason()}
		}
		if err != nil {
			return nil, err
		}
		file, code = src.Manifest, string(b)
		res.Read = append(res.Read, src.Manifest)
	}
	facts, strict := src.Facts, false
	if facts == nil {
		facts, strict = eval.GatherFacts(), true
	}
	mp, envName, envDir := penv.modulePath, penv.name, penv.dir
	res.Env = env
	var absent map[string]bool
	if strict {
		absent = eval.AbsentFacts(facts)
	}
	cat, err := eval.Compile(file, code, eval.Options{
		Facts: facts, StrictFacts: strict, AbsentFacts: absent, Certname: src.Certname, ModulePath: mp, Log: src.Log,
		Environment: envName, HieraConfig: DefaultHieraConfig, EnvironmentDir: envDir,
		StrictTypes: PuppetPath() != "",
		Read:        func(p string) { res.Read = append(res.Read, p) },
		Context:     ctx,
	})
	if err != nil {
		return nil, err
	}
	res.Catalog, res.ModulePath = cat, mp
	return res, nil
}

// NewPuppetEnv returns the pippet setup for a module path, environment
// and puppet.conf, with absolute paths (relative ones are resolved now:
// the graph may be applied from another directory).
func NewPuppetEnv(modulepath []string, environment, conf string) PuppetEnv {
	env := PuppetEnv{ModulePath: absPaths(modulepath), Environment: environment, Conf: conf}
	if conf != "" {
		if a, err := filepath.Abs(conf); err == nil {
			env.Conf = a
		}
	}
	return env
}

func absPaths(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if a, err := filepath.Abs(d); err == nil {
			d = a
		}
		out = append(out, d)
	}
	return out
}

// readPuppetConf reads the settings of the [main], [server] and [agent]
// sections of a puppet.conf (later sections win) that the native engine
// uses: certname and basemodulepath, and the ones it refuses.
func readPuppetConf(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	section := "main"
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			section = strings.TrimSpace(line[1 : len(line)-1])
		case section == "main" || section == "server" || section == "master" || section == "agent":
			k, v, ok := strings.Cut(line, "=")
			if ok {
				out[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
	}
	return out, nil
}

// puppetArgs returns the arguments of the puppet command for src.
func puppetArgs(src Source) []string {
	args := []string{"catalog", "compile"}
	if src.Certname != "" {
		args = append(args, src.Certname)
	}
	if src.Manifest != "" {
		args = append(args, "--manifest", src.Manifest)
	} else {
		args = append(args, "--code", src.Code)
	}
	if src.ModulePath != nil {
		args = append(args, "--modulepath", strings.Join(src.ModulePath, ":"))
	}
	if src.PuppetConf != "" {
		args = append(args, "--config", src.PuppetConf)
	}
	if src.Environment != "" {
		args = append(args, "--environment", src.Environment)
	}
	// rich data keeps Deferred values and non-string hash keys as they
	// are, for pippet's Puppet to resolve
	return append(args, "--render-as", "rich_data_json", "--log_level", "warning", "--color", "false")
}

func compilePuppet(ctx context.Context, src Source, env PuppetEnv) (*Result, error) {
	cmd := exec.CommandContext(ctx, PuppetPath(), puppetArgs(src)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		where := src.Manifest
		if where == "" {
			where = "<code>"
		}
		return nil, puppetError(errb.String(), err, where)
	}
	// the JSON starts at the first '{' (notices may precede it)
	data := out.Bytes()
	if i := bytes.IndexByte(data, '{'); i > 0 {
		data = data[i:]
	}
	cat, err := catalog.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("reading the catalog Puppet compiled: %v", err)
	}
	res := &Result{Catalog: cat, Env: env}
	if src.Manifest != "" {
		res.Read = append(res.Read, src.Manifest)
	}
	return res, nil
}

var (
	puppetPos   = regexp.MustCompile(`\s*\((?:file: ([^,]*), )?line: (\d+)(?:, column: (\d+))?\)`)
	puppetNoise = regexp.MustCompile(`^Error: Facter:`)
	puppetLevel = regexp.MustCompile(`^[A-Z][a-z]+: `)
)

// puppetStderr returns Puppet's stderr without what Facter says about the
// facts it could not resolve, which Puppet prints whether it fails or not:
// each "Error: Facter:" line with the lines under it (a custom fact's
// failing Ruby, quoted indented), up to the next line of a log level.
func puppetStderr(stderr string) string {
	var kept []string
	noise := false
	for _, line := range strings.Split(stderr, "\n") {
		switch {
		case puppetNoise.MatchString(line):
			noise = true
			continue
		case puppetLevel.MatchString(line):
			noise = false
		}
		if !noise {
			kept = append(kept, line)
		}
	}
	return strings.TrimSpace(strings.Join(kept, "\n"))
}

// puppetError turns Puppet's stderr into one positioned error; where (the
// manifest, or <code>) is the position of a failure Puppet gives none for.
func puppetError(stderr string, err error, where string) error {
	stderr = puppetStderr(stderr)
	var msgs []string
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "Error: ") {
			continue
		}
		msgs = append(msgs, strings.TrimPrefix(line, "Error: "))
	}
	if len(msgs) == 0 {
		// Puppet's own failures all have an Error line; without one, it
		// ended some other way: on a signal, or on an overflow of Ruby's
		// stack it does not report (classes nested some thousands deep).
		msg := fmt.Sprintf("puppet failed (%v) without saying why", err)
		if stderr != "" {
			msg = fmt.Sprintf("puppet failed (%v): %s", err, stderr)
		}
		return &Error{Pos: where, Msg: msg}
	}
	msg := msgs[0]
	m := puppetPos.FindStringSubmatchIndex(msg)
	if m == nil {
		return &Error{Msg: "puppet: " + msg}
	}
	sub := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return msg[m[2*i]:m[2*i+1]]
	}
	file, line, col := sub(1), sub(2), sub(3)
	if file == "" {
		file = "<code>"
	}
	pos := file + ":" + line
	if n, _ := strconv.Atoi(col); n > 0 {
		pos += ":" + col
	}
	text := msg[:m[0]] + msg[m[1]:]
	text = strings.TrimSuffix(strings.TrimSpace(text), ".")
	return &Error{Pos: pos, Msg: text}
}

func puppetSetting(ctx context.Context, puppetConf, name string) string {
	args := []string{"config", "print", name}
	if puppetConf != "" {
		args = append(args, "--config", puppetConf)
	}
	out, err := exec.CommandContext(ctx, PuppetPath(), args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// RunInterval asks Puppet for its runinterval in seconds (1800 when
// Puppet cannot tell).
func RunInterval(ctx context.Context, puppetConf string) int {
	n, err := strconv.Atoi(puppetSetting(ctx, puppetConf, "runinterval"))
	if err != nil || n <= 0 {
		return 1800
	}
	return n
}

// ConfRunInterval returns the runinterval of a puppet.conf in seconds, or
// 0 when it sets none. Puppet durations are numbers of seconds or carry a
// unit: 30m, 1h, 2d.
func ConfRunInterval(path string) int {
	conf, err := readPuppetConf(path)
	if err != nil {
		return 0
	}
	v := strings.TrimSpace(conf["runinterval"])
	if v == "" {
		return 0
	}
	unit := 1
	switch v[len(v)-1] {
	case 's':
		v = v[:len(v)-1]
	case 'm':
		unit, v = 60, v[:len(v)-1]
	case 'h':
		unit, v = 3600, v[:len(v)-1]
	case 'd':
		unit, v = 86400, v[:len(v)-1]
	case 'y':
		unit, v = 365*86400, v[:len(v)-1]
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0
	}
	return n * unit
}
