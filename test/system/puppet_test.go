package system

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/resources/system/systemtest"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// TestPuppetGraphToMachine translates a Puppet manifest of a package, the
// service it ships, a group and a user with puppet-graph on the host, and
// applies the graph with mgmt-apply inside the container. The user's groups
// are inclusive: with Puppet's default (minimum) the user goes to pippet.
func TestPuppetGraphToMachine(t *testing.T) {
	m := systemtest.Find(t)
	id := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	pkg, svc := "mgmt-pp-pkg-"+id, "mgmt-pp-svc-"+id
	unit := "[Unit]\nDescription=from puppet\n[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n"
	systemtest.Repo(t, m.Root, systemtest.Deb{Name: pkg, Version: "1.0",
		Files: map[string]string{"/lib/systemd/system/" + svc + ".service": unit}})
	t.Cleanup(func() {
		m.Command("systemctl", "disable", "--now", svc).Run()
		m.Command("apt-get", "remove", "-y", "-q", pkg).Run()
		m.Command("userdel", "mgmtpp"+id).Run()
		m.Command("groupdel", "mgmtppgrp"+id).Run()
	})
	code := fmt.Sprintf(`package { %[1]q: ensure => installed }
-> service { %[2]q: ensure => running, enable => true, provider => systemd }
group { "mgmtppgrp%[3]s": ensure => present, gid => 4500 }
user { "mgmtpp%[3]s": ensure => present, uid => 4501, gid => "mgmtppgrp%[3]s", groups => ["users"], membership => inclusive, provider => useradd }
`, pkg, svc, id)
	manifest := filepath.Join(t.TempDir(), "site.pp")
	if err := os.WriteFile(manifest, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	res := testutil.Run(t, "", "puppet-graph", "--manifest", manifest)
	if res.Code != 0 {
		t.Fatalf("puppet-graph: exit %d\n%s", res.Code, res.Stderr)
	}
	for _, kind := range []string{`"kind":"pkg"`, `"kind":"svc"`, `"kind":"user"`, `"kind":"group"`} {
		if !strings.Contains(res.Stdout, kind) {
			t.Fatalf("puppet-graph produced no %s resource:\n%s\n%s", kind, res.Stdout, res.Stderr)
		}
	}
	// Puppet has no allowunsupported, and PackageKit refuses local
	// packages without it: use the apt backend
	applyConverged(t, m, []string{"MGMT_PKG_BACKEND=apt"}, strings.TrimSpace(res.Stdout))
	if v := dpkgVersion(m, pkg); v != "1.0" {
		t.Errorf("%s: version %q", pkg, v)
	}
	if a, e := inMachine(m, "systemctl", "is-active", svc), inMachine(m, "systemctl", "is-enabled", svc); a != "active" || e != "enabled" {
		t.Errorf("%s: %s/%s", svc, a, e)
	}
	if out := inMachine(m, "id", "mgmtpp"+id); !strings.Contains(out, "uid=4501") || !strings.Contains(out, "(users)") {
		t.Errorf("id: %s", out)
	}
}
