package cluster

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestTLSAuthorization runs a TLS cluster of two members, m1 and m2, as
// separate processes, with host certificates for the tools on m1 and m2 and
// an admin certificate, and checks what each identity may do: m1's
// mgmt-apply exports a resource; m2's certificate can neither forge nor
// delete m1's exports; a host certificate cannot remove a member; the
// admin's can, after which m2 joins again and leaves cleanly (both need
// the rights of its member certificate).
func TestTLSAuthorization(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts etcd members")
	}
	dir := t.TempDir()
	for _, args := range [][]string{{"--role", "member", "m1", "m2"}, {"m1", "m2"}, {"--role", "admin", "ops"}} {
		if r := ctl(t, "", append([]string{"certs", "--dir", dir}, args...)...); r.Code != 0 {
			t.Fatalf("certs %v: %s", args, r.Stderr)
		}
	}
	ideal := "--ideal-cluster-size=3"
	m1 := newHost(t, "m1", "https", append(tlsFlags(dir, "member/m1"), ideal)...)
	m2 := newHost(t, "m2", "https", append(tlsFlags(dir, "member/m2"), ideal)...)
	m1.start()
	m1.waitLog("running as member m1", joinTimeout)
	m2.start(m1.client)
	m2.waitLog("running as member m2", joinTimeout)
	as := func(cn string, args ...string) []string {
		return append(append([]string{"--timeout", "5s", "--seeds", m1.client}, tlsFlags(dir, cn)...), args...)
	}

	t.Log("the tools on m1, with m1's host certificate, export a resource")
	g := `{"mgmt":"graph/v1","graph":"g","seq":1,"resources":[{"kind":"exec","name":"hello","params":{"cmd":"true"},"meta":{"export":["m2"]}}]}`
	apply := startApply(t, g, append([]string{"--tmp-prefix", "--seeds", m1.client, "--hostname", "m1"}, tlsFlags(dir, "m1")...)...)
	eventually(t, 30*time.Second, func() error {
		if r := ctl(t, "", as("m2", "get", "--prefix", "exports")...); !strings.Contains(r.Stdout, "exports/m1/m2/exec/hello") {
			return fmt.Errorf("m1's export not there yet: %q %s\n%s", r.Stdout, r.Stderr, apply.err.String())
		}
		return nil
	})
	if r := startApply(t, g, append([]string{"--tmp-prefix", "--seeds", m1.client, "--hostname", "m1"}, tlsFlags(dir, "m2")...)...); r.wait(t, 30*time.Second) != 1 ||
		!strings.Contains(r.err.String(), "certificate of host m2") {
		t.Fatalf("mgmt-apply as m1 with m2's certificate: %s", r.err.String())
	}

	t.Log("m2's certificate cannot forge or delete m1's exports")
	for _, args := range [][]string{
		{"put", "exports/m1/m2/exec/forged", `{"params":{"cmd":"id"}}`},
		{"put", "exports/m1/m2/exec/hello", `{"params":{"cmd":"id"}}`},
		{"del", "exports/m1/m2/exec/hello"},
		{"put", "mapped/m1/up", "no"},
		{"put", "converged/m1", "true"},
	} {
		if r := ctl(t, "", as("m2", args...)...); r.Code != 1 || !strings.Contains(r.Stderr, "permission denied") {
			t.Errorf("m2: mgmt-cluster %s: exit %d, %q; want permission denied", strings.Join(args, " "), r.Code, r.Stderr)
		}
	}
	if r := ctl(t, "", as("m2", "put", "exports/m2/m1/file/x", "{}")...); r.Code != 0 {
		t.Errorf("m2 writing its own export: %s", r.Stderr)
	}
	r := ctl(t, "", as("m2", "get", "--prefix", "exports/m1")...)
	if r.Code != 0 || r.Stdout != "exports/m1/m2/exec/hello\t{\"kind\":\"exec\",\"name\":\"hello\",\"params\":{\"cmd\":\"true\"}}\n" {
		t.Fatalf("m1's exports after m2's attempts: %q %s", r.Stdout, r.Stderr)
	}

	t.Log("a host certificate cannot remove a member; the admin can, and write anywhere")
	if r := ctl(t, "", as("m1", "remove", "m2")...); r.Code != 1 || !strings.Contains(r.Stderr, "permission denied") {
		t.Fatalf("a host removed a member: exit %d, %q", r.Code, r.Stderr)
	}
	if ms, err := members(t, m1.client, tlsFlags(dir, "m1")...); err != nil || names(ms) != "m1,m2" {
		t.Fatalf("members after the host's attempt: %s, %v", names(ms), err)
	}
	if r := ctl(t, "", as("admin/ops", "put", "exports/m1/m2/exec/by-admin", "{}")...); r.Code != 0 {
		t.Errorf("the admin writing outside its keys: %s", r.Stderr)
	}
	if r := ctl(t, "", as("admin/ops", "del", "exports/m1/m2/exec/by-admin")...); r.Code != 0 {
		t.Errorf("the admin deleting outside its keys: %s", r.Stderr)
	}
	if r := ctl(t, "", as("admin/ops", "remove", "m2")...); r.Code != 0 {
		t.Fatalf("the admin removing m2: %s", r.Stderr)
	}
	m2.waitLog("member m2 was removed from the cluster; joining again", joinTimeout)

	t.Log("m2, a member certificate, joins again and leaves cleanly")
	eventually(t, joinTimeout, func() error {
		ms, err := members(t, m1.client, tlsFlags(dir, "m1")...)
		if err == nil && (names(ms) != "m1,m2" || len(ms[1].ClientURLs) == 0) {
			err = fmt.Errorf("members %+v", ms)
		}
		if err == nil && m2.count("running as member m2") < 2 {
			err = fmt.Errorf("m2 has not logged that it runs as a member again")
		}
		return err
	})
	if code := m2.stop(30 * time.Second); code != 0 || !strings.Contains(m2.log(), "left the cluster") {
		t.Fatalf("m2 exited %d:\n%s", code, m2.log())
	}
}
