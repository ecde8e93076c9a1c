package cluster

import (
	"context"
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/mgmtpipe/mgmt/pkg/world"
)

// TestConvergedExit runs mgmt-apply hosts with --converged-timeout on a
// 3-member cluster while another host, "blocker", records that it is not
// converged on a lease of its own. The hosts record themselves converged
// and keep running while hosts join, one leaves (SIGTERM) and a member is
// killed (SIGKILL): the world is not converged while the blocker's entry
// lives. The blocker's lease is then left to expire, and every remaining
// host exits by itself with code 0. Each host follows the converged
// states with one read and a watch; the member's loss breaks no host.
func TestConvergedExit(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts three etcd members")
	}
	ms := startMembers(t, 3)
	seeds := strings.Join([]string{ms[0].client, ms[1].client, ms[2].client}, ",")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	obs, err := world.Connect(ctx, world.Config{Endpoints: []string{ms[0].client, ms[2].client}, Hostname: "observer"})
	if err != nil {
		t.Fatal(err)
	}
	defer obs.Close()
	cli := obs.Etcd()
	lease, err := cli.Grant(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	kctx, stopKeepAlive := context.WithCancel(ctx)
	defer stopKeepAlive()
	kept, err := cli.KeepAlive(kctx, lease.ID)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range kept {
		}
	}()
	if _, err := cli.Put(ctx, obs.Namespace()+"/converged/blocker", "false", clientv3.WithLease(lease.ID)); err != nil {
		t.Fatal(err)
	}

	start := func(name string) *applyProc {
		g := fmt.Sprintf(`{"mgmt":"graph/v1","graph":%q,"seq":1,"resources":[{"kind":"noop","name":"n"}]}`, name)
		return startApply(t, g, "--tmp-prefix", "--seeds", seeds, "--hostname", name, "--converged-timeout", "1")
	}
	// waitStates waits until the world records exactly want (host: state).
	watch := obs.ConvergedWatch(ctx)
	waitStates := func(what string, want map[string]bool) {
		t.Helper()
		for {
			got, err := obs.Converged(ctx)
			if err == nil && fmt.Sprint(got) == fmt.Sprint(want) {
				return
			}
			select {
			case <-watch:
			case <-ctx.Done():
				t.Fatalf("%s: the world records %v (%v), want %v", what, got, err, want)
			}
		}
	}
	hosts := map[string]*applyProc{"h1": start("h1"), "h2": start("h2")}
	waitStates("h1 and h2 started", map[string]bool{"blocker": false, "h1": true, "h2": true})

	t.Log("a member killed, a host joins, another leaves")
	ms[1].kill()
	hosts["h3"] = start("h3")
	waitStates("h3 joined", map[string]bool{"blocker": false, "h1": true, "h2": true, "h3": true})
	hosts["h2"].cmd.Process.Signal(syscall.SIGTERM)
	if code := hosts["h2"].wait(t, time.Minute); code != 0 {
		t.Fatalf("h2 stopped by SIGTERM exited %d:\n%s", code, hosts["h2"].err.String())
	}
	delete(hosts, "h2")
	waitStates("h2 left", map[string]bool{"blocker": false, "h1": true, "h3": true})
	for name, h := range hosts {
		select {
		case <-h.done:
			t.Fatalf("%s exited while the blocker was not converged:\n%s", name, h.err.String())
		default:
		}
	}

	t.Log("the blocker's lease left to expire")
	stopKeepAlive()
	waitStates("the blocker's lease expired", map[string]bool{"h1": true, "h3": true})
	for name, h := range hosts {
		if code := h.wait(t, time.Minute); code != 0 {
			t.Fatalf("%s exited %d, want 0 (converged):\n%s", name, code, h.err.String())
		}
		if !strings.Contains(h.err.String(), "the cluster converged") {
			t.Fatalf("%s exited without saying the cluster converged:\n%s", name, h.err.String())
		}
	}
}
