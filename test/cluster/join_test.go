package cluster

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// settleTimeout bounds the wait for a cluster to reach its shape after
// hosts started, died or left.
const settleTimeout = 120 * time.Second

// rounds returns the number of rounds of a repeated test: the environment
// variable env (CI's stress check sets it), or def.
func rounds(t testing.TB, env string, def int) int {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive count", env, v)
	}
	return n
}

// startAtOnce starts n hosts at the same moment with the given ideal
// cluster size: h1 without seeds (it starts the cluster), the others
// joining through it.
func startAtOnce(t *testing.T, n, ideal int) []*host {
	t.Helper()
	var hs []*host
	for i := 1; i <= n; i++ {
		hs = append(hs, newHost(t, fmt.Sprintf("h%d", i), "http", "--ideal-cluster-size", strconv.Itoa(ideal)))
	}
	hs[0].start()
	for _, h := range hs[1:] {
		h.start(hs[0].client)
	}
	return hs
}

// seedsOf returns the client URLs of the running hosts among hs.
func seedsOf(hs []*host) string {
	var us []string
	for _, h := range hs {
		if h.running() {
			us = append(us, h.client)
		}
	}
	return strings.Join(us, ",")
}

// shape is who is what in a settled cluster.
type shape struct {
	members, standbys []string // host names, sorted
}

// settle waits until the cluster has exactly ideal members, all healthy,
// and every other running host of hs stands by; it fails the test when a
// host of hs exits that the test did not stop.
func settle(t *testing.T, hs []*host, ideal int) shape {
	t.Helper()
	defer func() {
		if t.Failed() {
			for _, h := range hs {
				t.Logf("%s:\n%s", h.name, h.log())
			}
		}
	}()
	var sh shape
	eventually(t, settleTimeout, func() error {
		for _, h := range hs {
			if h.cmd != nil && !h.running() && !h.stopping {
				t.Fatalf("%s exited with code %d:\n%s", h.name, h.code, h.log())
			}
		}
		var err error
		sh, err = shapeOf(t, hs)
		if err != nil {
			return err
		}
		if len(sh.members) != ideal {
			return fmt.Errorf("members %v, standbys %v: want %d members", sh.members, sh.standbys, ideal)
		}
		want := map[string]bool{}
		for _, h := range hs {
			if h.running() {
				want[h.name] = true
			}
		}
		for _, n := range append(append([]string{}, sh.members...), sh.standbys...) {
			if !want[n] {
				return fmt.Errorf("members %v, standbys %v: %s is listed twice or not running", sh.members, sh.standbys, n)
			}
			delete(want, n)
		}
		if len(want) > 0 {
			return fmt.Errorf("members %v, standbys %v: not settled yet", sh.members, sh.standbys)
		}
		return nil
	})
	return sh
}

// shapeOf reads the healthy members and the standbys through the running
// hosts of hs.
func shapeOf(t *testing.T, hs []*host) (shape, error) {
	t.Helper()
	seeds := seedsOf(hs)
	r := ctl(t, "", "status", "--json", "--timeout", "3s", "--seeds", seeds)
	var ms []member
	if err := json.Unmarshal([]byte(r.Stdout), &ms); err != nil {
		return shape{}, fmt.Errorf("status: exit %d: %s", r.Code, r.Stderr)
	}
	var sh shape
	for _, m := range ms {
		if !m.Healthy || m.Name == "" {
			return shape{}, fmt.Errorf("member %q (%s) is not healthy yet", m.Name, m.ID)
		}
		sh.members = append(sh.members, m.Name)
	}
	all, err := members(t, seeds, "--standbys")
	if err != nil {
		return shape{}, err
	}
	for _, m := range all {
		if m.Standby {
			sh.standbys = append(sh.standbys, m.Name)
		}
	}
	sort.Strings(sh.members)
	sort.Strings(sh.standbys)
	return sh, nil
}

// byName returns the hosts of hs named in names.
func byName(hs []*host, names ...string) []*host {
	var out []*host
	for _, n := range names {
		for _, h := range hs {
			if h.name == n {
				out = append(out, h)
			}
		}
	}
	return out
}

// TestJoinAtOnce starts five hosts at the same moment, again and again
// (MGMT_CLUSTER_JOIN_ROUNDS rounds, default 2): one starts the cluster and
// four join through it at once. Even rounds want five members (everyone
// joins), odd rounds three (two hosts stand by). Every round must end with
// exactly the ideal number of healthy members, the other hosts standing
// by, and no host exited.
func TestJoinAtOnce(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts several etcd members")
	}
	n := rounds(t, "MGMT_CLUSTER_JOIN_ROUNDS", 2)
	testutil.Tools(t) // built before the rounds are timed
	for r := 0; r < n; r++ {
		ideal := 5
		if r%2 == 1 {
			ideal = 3
		}
		t.Run(fmt.Sprintf("round%d-ideal%d", r+1, ideal), func(t *testing.T) {
			start := time.Now()
			hs := startAtOnce(t, 5, ideal)
			sh := settle(t, hs, ideal)
			t.Logf("settled in %v: members %v, standbys %v", time.Since(start).Round(time.Millisecond), sh.members, sh.standbys)
			for _, h := range byName(hs, sh.members...) {
				if h.count("running as member "+h.name) != 1 {
					t.Errorf("%s joined more than once:\n%s", h.name, h.log())
				}
			}
		})
	}
}

// TestReplace covers promotions with an ideal size of three and five
// hosts started at once: a killed member is replaced by exactly one of the
// two standbys; two members leaving at once (SIGTERM) are replaced by the
// remaining standby; the killed member, restarted after all its old peers
// are gone, notices through its seeds that it was removed and joins anew;
// the two hosts that left come back as standbys, and when two members
// leave at once again, both standbys are promoted. A key written at the
// start is there at the end.
func TestReplace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts several etcd members")
	}
	hs := startAtOnce(t, 5, 3)
	sh := settle(t, hs, 3)
	if r := ctl(t, "", "put", "--seeds", seedsOf(hs), "strings/k", "kept"); r.Code != 0 {
		t.Fatalf("put: %s", r.Stderr)
	}

	t.Log("a killed member is replaced by exactly one standby")
	h1 := hs[0] // started the cluster: always a member
	h1.kill()
	sh2 := settle(t, hs, 3)
	promoted := diff(sh2.members, sh.members)
	if len(promoted) != 1 || len(sh2.standbys) != 1 {
		t.Fatalf("after the kill: members %v, standbys %v; before: %v, %v", sh2.members, sh2.standbys, sh.members, sh.standbys)
	}
	if n := countAll(hs, "is dead: removing it"); n != 1 {
		t.Fatalf("the dead member was removed %d times", n)
	}
	stay := byName(hs, sh2.standbys...)[0]
	if stay.count("running as member") != 0 {
		t.Fatalf("%s was promoted too:\n%s", stay.name, stay.log())
	}

	t.Log("two members leaving at once: the standby takes one place")
	leavers := byName(hs, diff(sh2.members, promoted)...)
	leaveAll(t, leavers)
	sh3 := settle(t, hs, 2)
	if want := []string{promoted[0], stay.name}; !same(sh3.members, want) {
		t.Fatalf("after the leaves: members %v, want %v", sh3.members, want)
	}

	t.Log("the killed member, whose old peers are all gone, learns of its removal from its seeds")
	h1.start(seedsOf(hs))
	h1.waitLog("removed from the cluster while down", joinTimeout)
	h1.waitLog("running as member h1", joinTimeout)

	t.Log("the two hosts that left come back as standbys")
	for _, h := range leavers {
		h.start(seedsOf(hs))
	}
	sh4 := settle(t, hs, 3)
	if !same(sh4.standbys, hostNames(leavers)) {
		t.Fatalf("standbys %v, want %v", sh4.standbys, hostNames(leavers))
	}

	t.Log("two members leaving at once: both standbys are promoted")
	leaveAll(t, byName(hs, diff(sh4.members, []string{"h1"})...))
	sh5 := settle(t, hs, 3)
	if want := append([]string{"h1"}, hostNames(leavers)...); !same(sh5.members, want) {
		t.Fatalf("members %v, want %v", sh5.members, want)
	}
	if r := ctl(t, "", "get", "--seeds", seedsOf(hs), "strings/k"); r.Stdout != "kept\n" {
		t.Fatalf("the key is lost: %q %s", r.Stdout, r.Stderr)
	}
}

// leaveAll sends SIGTERM to every host of hs at once and checks that each
// left the cluster and deleted its data.
func leaveAll(t *testing.T, hs []*host) {
	t.Helper()
	for _, h := range hs {
		h.term()
	}
	for _, h := range hs {
		if code := h.wait(60 * time.Second); code != 0 || h.count("left the cluster") != 1 {
			t.Fatalf("%s exited %d without leaving:\n%s", h.name, code, h.log())
		}
		if _, err := os.Stat(h.dir); !os.IsNotExist(err) {
			t.Fatalf("%s kept its data directory: %v", h.name, err)
		}
	}
}

// TestLeaveAll sends SIGTERM to all three members of a cluster at once,
// MGMT_CLUSTER_LEAVE_ROUNDS times (default 1): they leave one after the
// other until the last, which keeps its data; restarting all three brings
// the cluster back with its data.
func TestLeaveAll(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts several etcd members")
	}
	n := rounds(t, "MGMT_CLUSTER_LEAVE_ROUNDS", 1)
	for r := 0; r < n; r++ {
		t.Run(fmt.Sprintf("round%d", r+1), leaveAllRound)
	}
}

func leaveAllRound(t *testing.T) {
	start := time.Now()
	hs := startAtOnce(t, 3, 3)
	settle(t, hs, 3)
	all := seedsOf(hs)
	t.Logf("settled in %v", time.Since(start))
	if r := ctl(t, "", "put", "--seeds", all, "strings/k", "before"); r.Code != 0 {
		t.Fatalf("put: %s", r.Stderr)
	}
	for _, h := range hs {
		h.term()
	}
	var kept []string
	for _, h := range hs {
		code := h.wait(60 * time.Second)
		if os.Getenv("DEBUGLOGS") != "" {
			t.Logf("%s:\n%s", h.name, h.log())
		}
		_, err := os.Stat(h.dir)
		switch {
		case code != 0:
			t.Fatalf("%s exited %d:\n%s", h.name, code, h.log())
		case h.count("left the cluster") == 1 && os.IsNotExist(err):
		case h.count("last member of the cluster") == 1 && err == nil:
			kept = append(kept, h.name)
		default:
			t.Fatalf("%s neither left nor stayed as the last member (data: %v):\n%s", h.name, err, h.log())
		}
	}
	if len(kept) != 1 {
		t.Fatalf("members that kept their data: %v, want one", kept)
	}
	stopped := time.Now()
	for _, h := range hs {
		h.start(all)
	}
	settle(t, hs, 3)
	if r := ctl(t, "", "get", "--seeds", all, "strings/k"); r.Stdout != "before\n" {
		t.Fatalf("the key is lost after the restart: %q %s", r.Stdout, r.Stderr)
	}
	t.Logf("%s kept the data; stopped in %v, back in %v", kept[0], stopped.Sub(start).Round(time.Millisecond), time.Since(stopped).Round(time.Millisecond))
	if os.Getenv("DEBUGLOGS") != "" {
		for _, h := range hs {
			t.Logf("%s:\n%s", h.name, h.log())
		}
	}
}

// diff returns the names in a but not in b.
func diff(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}

// same reports whether a and b hold the same names, in any order.
func same(a, b []string) bool {
	return len(a) == len(b) && len(diff(a, b)) == 0
}

func hostNames(hs []*host) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.name)
	}
	sort.Strings(out)
	return out
}

// countAll counts the log lines containing s over all hosts.
func countAll(hs []*host, s string) int {
	n := 0
	for _, h := range hs {
		n += h.count(s)
	}
	return n
}
