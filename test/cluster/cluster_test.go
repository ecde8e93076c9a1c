// Package cluster holds the end-to-end tests of mgmt-cluster: real etcd
// members as separate processes on loopback ports.
package cluster

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

const joinTimeout = 45 * time.Second

// TestCluster forms a 3-member cluster from one seed, checks replication,
// a standby beyond the ideal size and its promotion when a member dies, the
// dead member's return as a standby, a crashed member's restart with its
// data, and a clean leave that promotes the standby.
func TestCluster(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts several etcd members")
	}
	ideal := []string{"--ideal-cluster-size", "3"}
	h1, h2, h3, h4 := newHost(t, "h1", "http", ideal...), newHost(t, "h2", "http", ideal...),
		newHost(t, "h3", "http", ideal...), newHost(t, "h4", "http", ideal...)

	h1.start()
	h1.waitLog("running as member h1", joinTimeout)
	h2.start(h1.client)
	h2.waitLog("running as member h2", joinTimeout)
	h3.start(h1.client)
	h3.waitLog("running as member h3", joinTimeout)

	ms, err := members(t, h3.client)
	if err != nil || names(ms) != "h1,h2,h3" {
		t.Fatalf("members through h3: %q, %v", names(ms), err)
	}
	var h3id string
	for _, m := range ms {
		if m.Name == "h3" {
			h3id = m.ID
		}
	}

	t.Log("a write through one member is read through another")
	if r := ctl(t, "", "put", "--seeds", h1.client, "strings/greeting", "hello"); r.Code != 0 {
		t.Fatalf("put: %s", r.Stderr)
	}
	if r := ctl(t, "", "get", "--seeds", h3.client, "strings/greeting"); r.Code != 0 || r.Stdout != "hello\n" {
		t.Fatalf("get through h3: %q %s", r.Stdout, r.Stderr)
	}

	t.Log("beyond the ideal size a host stands by and proxies")
	h4.start(h1.client)
	h4.waitLog("standing by", joinTimeout)
	if r := ctl(t, "", "get", "--seeds", h4.client, "strings/greeting"); r.Code != 0 || r.Stdout != "hello\n" {
		t.Fatalf("get through the standby: %q %s", r.Stdout, r.Stderr)
	}
	if ms, _ := members(t, h2.client); len(ms) != 3 {
		t.Fatalf("the standby became a member: %s", names(ms))
	}
	if ms, err := members(t, h2.client, "--standbys"); err != nil || names(ms) != "h1,h2,h3,h4" || !ms[3].Standby {
		t.Fatalf("members with standbys: %+v, %v", ms, err)
	}

	t.Log("killing a member leaves the other two serving, and promotes the standby")
	h1.kill()
	eventually(t, 20*time.Second, func() error {
		if r := ctl(t, "", "put", "--timeout", "3s", "--seeds", h2.client, "strings/after", "kill"); r.Code != 0 {
			return fmt.Errorf("put through h2: %s", r.Stderr)
		}
		return nil
	})
	if r := ctl(t, "", "get", "--seeds", h3.client, "strings/after"); r.Stdout != "kill\n" {
		t.Fatalf("get through h3 after the kill: %q %s", r.Stdout, r.Stderr)
	}
	h4.waitLog("running as member h4", joinTimeout)
	eventually(t, 20*time.Second, func() error {
		ms, err := members(t, h2.client)
		if err == nil && names(ms) != "h2,h3,h4" {
			err = fmt.Errorf("members %s, want h2,h3,h4", names(ms))
		}
		return err
	})
	if r := ctl(t, "", "get", "--seeds", h4.client, "strings/after"); r.Stdout != "kill\n" {
		t.Fatalf("the promoted member lacks the data: %q %s", r.Stdout, r.Stderr)
	}

	t.Log("the killed member, removed meanwhile, comes back as a standby")
	h1.start(h2.client)
	h1.waitLog("removed from the cluster while down", joinTimeout)
	h1.waitLog("standing by", joinTimeout)

	t.Log("a crashed member restarts from its data directory")
	h3.kill()
	if r := ctl(t, "", "put", "--seeds", h2.client, "strings/while-down", "x"); r.Code != 0 {
		t.Fatalf("put with h3 down: %s", r.Stderr)
	}
	h3.start(h2.client)
	h3.waitLog("running as member h3", joinTimeout)
	if strings.Contains(h3.log(), "removed from the cluster") {
		t.Fatalf("h3 did not reuse its data:\n%s", h3.log())
	}
	eventually(t, 20*time.Second, func() error {
		r := ctl(t, "", "get", "--timeout", "3s", "--seeds", h3.client, "strings/while-down")
		if r.Stdout != "x\n" {
			return fmt.Errorf("get through the restarted h3: %q %s", r.Stdout, r.Stderr)
		}
		return nil
	})
	ms, _ = members(t, h2.client)
	for _, m := range ms {
		if m.Name == "h3" && m.ID != h3id {
			t.Fatalf("h3 came back as a new member %s, was %s", m.ID, h3id)
		}
	}

	t.Log("a clean shutdown removes the member and its data")
	if code := h2.stop(30 * time.Second); code != 0 {
		t.Fatalf("h2 exited %d:\n%s", code, h2.log())
	}
	if !strings.Contains(h2.log(), "left the cluster") {
		t.Fatalf("h2 did not leave:\n%s", h2.log())
	}
	if _, err := os.Stat(h2.dir); !os.IsNotExist(err) {
		t.Fatalf("h2's data directory remains: %v", err)
	}
	h1.waitLog("running as member h1", joinTimeout)
	eventually(t, 20*time.Second, func() error {
		ms, err := members(t, h3.client)
		if err == nil && names(ms) != "h1,h3,h4" {
			err = fmt.Errorf("members %s, want h1,h3,h4 (the standby replaced h2)", names(ms))
		}
		return err
	})
	if r := ctl(t, "", "status", "--seeds", h4.client); r.Code != 0 || !strings.Contains(r.Stdout, "h3") {
		t.Fatalf("status: %d %q %s", r.Code, r.Stdout, r.Stderr)
	}
}
