package puppetagent

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// Where Debian's puppetserver package puts its program and configuration.
const (
	serverJar   = "/usr/share/puppetserver/puppetserver.jar"
	serverConf  = "/etc/puppet/puppetserver/conf.d"
	serverBoot  = "/etc/puppet/puppetserver/services.d"
	modulesDir  = "/usr/share/puppet/modules"
	serverReady = "Puppet Server has successfully started"
)

// startTimeout bounds the start of the JVM server when the test has no
// deadline: about a minute on two idle cores, many more when other work
// shares them.
const startTimeout = 10 * time.Minute

// A server is a Puppet server of the test's own: its CA, its code and its
// port, all under one temporary directory.
type server struct {
	dir  string // everything of the server
	port int
	cmd  *exec.Cmd
	done chan struct{} // closed when the JVM has exited
	log  string        // its log file
}

// envDir is the directory of the server's production environment.
func (s *server) envDir() string { return filepath.Join(s.dir, "code", "environments", "production") }

// caCert is the CA certificate the server made at its first start.
func (s *server) caCert() string { return filepath.Join(s.dir, "etc", "ssl", "certs", "ca.pem") }

// writeFiles writes files (path relative to dir -> content).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newServer configures a Puppet server in a temporary directory: Debian's
// authorization rules and services, its own CA (made at the first start),
// a server certificate for localhost, autosigning for the certnames
// given only, and a production environment whose modules are the given
// Debian modules and what they depend on.
func newServer(t *testing.T, modules []string, autosign ...string) *server {
	t.Helper()
	testneed.Path(t, serverJar, "puppetserver")
	testneed.Command(t, "java", "puppetserver")
	s := &server{dir: t.TempDir(), port: testutil.FreePort(t)}
	s.log = filepath.Join(s.dir, "log", "server.log")
	d := s.dir
	hocon := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	writeFiles(t, d, map[string]string{
		"conf.d/puppetserver.conf": fmt.Sprintf(`jruby-puppet: {
    ruby-load-path: [/usr/lib/puppetserver/ruby/vendor_ruby]
    gem-home: %[1]s
    gem-path: [%[1]s, "/usr/lib/puppetserver/vendored-jruby-gems"]
    server-conf-dir: %[2]s
    server-code-dir: %[3]s
    server-var-dir: %[4]s
    server-run-dir: %[5]s
    server-log-dir: %[6]s
    max-active-instances: 1
}
http-client: {}
profiler: {}
product: { check-for-updates: false }
`, hocon(d+"/var/gems"), hocon(d+"/etc"), hocon(d+"/code"), hocon(d+"/var"), hocon(d+"/run"), hocon(d+"/log")),
		"conf.d/webserver.conf": fmt.Sprintf("webserver: {\n    client-auth: want\n    ssl-host: 127.0.0.1\n    ssl-port: %d\n}\n", s.port),
		"conf.d/global.conf":    fmt.Sprintf("global: { logging-config: %s }\n", hocon(d+"/logback.xml")),
		"logback.xml": `<configuration>
  <appender name="F" class="ch.qos.logback.core.FileAppender"><file>` + s.log + `</file>
    <encoder><pattern>%d %-5p [%c{2}] %m%n</pattern></encoder></appender>
  <root level="info"><appender-ref ref="F"/></root>
</configuration>
`,
		"etc/puppet.conf": fmt.Sprintf(`[main]
certname = localhost
dns_alt_names = localhost,IP:127.0.0.1
ssldir = %[1]s/etc/ssl
cadir = %[1]s/etc/ca
codedir = %[1]s/code
vardir = %[1]s/var
logdir = %[1]s/log
rundir = %[1]s/run
[server]
autosign = %[1]s/etc/autosign.conf
environment_timeout = 0
`, d),
		"etc/autosign.conf": strings.Join(autosign, "\n") + "\n",
	})
	for _, f := range []string{"auth.conf", "web-routes.conf", "metrics.conf", "ca.conf"} {
		b, err := os.ReadFile(filepath.Join(serverConf, f))
		if err != nil {
			t.Fatal(err)
		}
		writeFiles(t, d, map[string]string{"conf.d/" + f: string(b)})
	}
	linkModules(t, filepath.Join(s.envDir(), "modules"), modules)
	return s
}

// linkModules links the Debian modules and, through their metadata, the
// modules they depend on into dir.
func linkModules(t *testing.T, dir string, modules []string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for len(modules) > 0 {
		m := modules[0]
		modules = modules[1:]
		if seen[m] {
			continue
		}
		seen[m] = true
		src := filepath.Join(modulesDir, m)
		testneed.Path(t, src, "puppet-module-*-"+m)
		if err := os.Symlink(src, filepath.Join(dir, m)); err != nil {
			t.Fatal(err)
		}
		var meta struct {
			Dependencies []struct{ Name string } `json:"dependencies"`
		}
		if b, err := os.ReadFile(filepath.Join(src, "metadata.json")); err == nil {
			if err := json.Unmarshal(b, &meta); err != nil {
				t.Fatalf("%s/metadata.json: %v", src, err)
			}
		}
		for _, dep := range meta.Dependencies {
			name := dep.Name[strings.LastIndexAny(dep.Name, "/-")+1:]
			modules = append(modules, name)
		}
	}
}

// start starts the JVM and waits until the server says it is ready; the
// server is stopped when the test ends.
func (s *server) start(t *testing.T) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(s.log), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(s.dir, "log", "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	// the heap and one JRuby instance fit a small machine; Debian's
	// service starts with 1 GiB
	s.cmd = exec.Command("java", "-Xms256m", "-Xmx768m", "-Djruby.lib=/usr/share/jruby/lib",
		"-XX:+CrashOnOutOfMemoryError", "-jar", serverJar,
		"--config", filepath.Join(s.dir, "conf.d"), "--bootstrap-config", serverBoot)
	s.cmd.Dir = filepath.Dir(serverJar)
	s.cmd.Stdout, s.cmd.Stderr = out, out
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	began := time.Now()
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.done = make(chan struct{})
	go func() {
		s.cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(s.stop)
	s.waitReady(t)
	t.Logf("puppetserver ready in %s (%s)", time.Since(began).Round(time.Second), s.usage())
}

// waitReady waits for the server's line saying it is ready, or its exit.
// The pause between looks only spaces them.
func (s *server) waitReady(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(startTimeout)
	if d, ok := t.Deadline(); ok {
		deadline = d.Add(-30 * time.Second)
	}
	for {
		b, _ := os.ReadFile(s.log)
		if strings.Contains(string(b), serverReady) {
			return
		}
		select {
		case <-s.done:
			t.Fatalf("puppetserver exited before it was ready:\n%s", tail(s.log, 40))
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("puppetserver not ready in time (%s):\n%s", s.usage(), tail(s.log, 40))
		}
	}
}

// stop stops the JVM (SIGTERM, then SIGKILL after a minute) and waits for
// its exit.
func (s *server) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	select {
	case <-s.done:
		return
	default:
	}
	syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(time.Minute):
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done
	}
}

// usage returns the JVM's CPU time and peak memory so far, for the log.
func (s *server) usage() string {
	pid := s.cmd.Process.Pid
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "usage unknown"
	}
	f := strings.Fields(string(stat)[strings.LastIndexByte(string(stat), ')')+2:])
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	hwm := "?"
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				hwm = strings.TrimSpace(v)
			}
		}
	}
	// clock ticks are 1/100 s on Linux
	return fmt.Sprintf("JVM cpu %.1fs, peak rss %s", float64(utime+stime)/100, hwm)
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
