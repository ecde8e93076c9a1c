package cluster

import (
	"os"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// startTimeout bounds the wait for every file of n hosts after they start.
func startTimeout(n int) time.Duration { return 60*time.Second + time.Duration(n)*3*time.Second }

// changeTimeout bounds the wait for one host's change to reach n-1 others.
func changeTimeout(n int) time.Duration { return 60*time.Second + time.Duration(n)*time.Second }

// TestManyHosts runs a 3-member cluster and MGMT_MANY_HOSTS hosts (4 by
// default; CI's scale check runs 100), every host exporting a file to every
// other one and collecting the files addressed to it, and checks that
// every file arrives; that a host's changed export reaches every other
// host; that the hosts ride out one member killed (SIGKILL) and restarted,
// and a tenth of the hosts killed and restarted (a change made and a
// collected file removed meanwhile): the world keeps every export of the
// killed hosts, and every file is repaired; and that every mgmt-apply
// exits by itself, with code 0, once the whole world has been converged
// for --converged-timeout.
func TestManyHosts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts three etcd members and many hosts")
	}
	n := manyHosts(t, 4)
	w := newManyWorld(t, n)
	want := int64(n * (n - 1))
	rev0, _ := w.status()
	t0 := time.Now()
	w.startAll()
	w.waitFiles("start", startTimeout(n))
	took := time.Since(t0)
	rev1, db := w.status()
	t.Logf("%d hosts: all %d files in place after %.1f s; %d etcd revisions (%.0f/s), database %.1f MiB",
		n, want, took.Seconds(), rev1-rev0, float64(rev1-rev0)/took.Seconds(), float64(db)/(1<<20))
	am, ax := w.rss(func(a *agent) *testutil.Proc { return a.apply })
	cm, cx := w.rss(func(a *agent) *testutil.Proc { return a.compile })
	t.Logf("resident memory (median/largest): mgmt-apply with its world client %.1f/%.1f MiB, mcl-compile %.1f/%.1f MiB", am, ax, cm, cx)

	var lat []time.Duration
	for _, a := range w.agents[:min(n, 5)] {
		lat = append(lat, w.change(a, changeTimeout(n))...)
	}
	t.Logf("a changed export repaired on every other host: p50 %v, p99 %v (%d files)",
		percentile(lat, 50).Round(time.Millisecond), percentile(lat, 99).Round(time.Millisecond), len(lat))

	t.Log("one member killed (SIGKILL), a change made, the member restarted")
	m := w.members[1]
	m.kill()
	lat = w.change(w.agents[0], changeTimeout(n))
	t.Logf("the change reached every host after %v", percentile(lat, 100).Round(time.Millisecond))
	t1 := time.Now()
	m.start(w.members[0].client)
	m.waitLog("running as member "+m.name, joinTimeout)
	t.Logf("the member is back after %.1f s", time.Since(t1).Seconds())
	lat = w.change(w.agents[1], changeTimeout(n))
	t.Logf("the next change reached every host after %v", percentile(lat, 100).Round(time.Millisecond))

	k := max(1, n/10)
	t.Logf("%d hosts killed (SIGKILL), a change made and a collected file removed, the hosts restarted", k)
	dead := w.agents[n-k:]
	for _, a := range dead {
		a.kill()
	}
	if c := w.exportCount(); c != want {
		t.Fatalf("the world holds %d exports after %d hosts were killed, want %d", c, k, want)
	}
	w.agents[0].gen++
	w.agents[0].writeVersion()
	if err := os.Remove(dead[0].file(w.agents[1])); err != nil {
		t.Fatal(err)
	}
	t1 = time.Now()
	for _, a := range dead {
		a.start()
	}
	w.waitFiles("restart", startTimeout(k))
	t.Logf("the killed hosts repaired every file %.1f s after their restart", time.Since(t1).Seconds())
	if c := w.exportCount(); c != want {
		t.Fatalf("the world holds %d exports after the restart, want %d", c, want)
	}
	exit := w.waitConvergedExit(time.Duration(3*w.conv)*time.Second + startTimeout(n))
	t.Logf("every mgmt-apply exited converged %.1f s after the last file was repaired (--converged-timeout %d)", exit.Seconds(), w.conv)
}

// BenchmarkManyHosts runs the world of TestManyHosts without faults
// (MGMT_MANY_HOSTS hosts, 20 by default; the figures of docs/operating.md
// are for 100, which needs about 8 GB of memory) and reports: the time
// from the start of the hosts until every file is in place; how long a
// host's changed export takes to be repaired on the other hosts (p50 and
// p99 of ten changes); etcd's write rate (revisions a second) during the
// start and its database size; the range requests the members served
// while the hosts started, per change, and until every host exited; the
// resident memory of the tools of each host (median) and of a member; and
// how long the hosts took to exit once converged, --converged-timeout
// included.
func BenchmarkManyHosts(b *testing.B) {
	n := manyHosts(b, 20)
	for i := 0; i < b.N; i++ {
		w := newManyWorld(b, n)
		rev0, _ := w.status()
		r0 := w.ranges()
		t0 := time.Now()
		w.startAll()
		w.waitFiles("start", startTimeout(n))
		took := time.Since(t0)
		rev1, db := w.status()
		r1 := w.ranges()
		am, _ := w.rss(func(a *agent) *testutil.Proc { return a.apply })
		cm, _ := w.rss(func(a *agent) *testutil.Proc { return a.compile })
		mkb, err := vmRSS(w.members[0].cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		var lat []time.Duration
		r2 := w.ranges()
		for j := range 10 {
			lat = append(lat, w.change(w.agents[j%n], changeTimeout(n))...)
		}
		r3 := w.ranges()
		b.Logf("%d hosts, %d files in place after %.1f s: %d etcd revisions, database %.1f MiB; repaired p50 %v, p99 %v",
			n, n*(n-1), took.Seconds(), rev1-rev0, float64(db)/(1<<20), percentile(lat, 50), percentile(lat, 99))
		exit := w.waitConvergedExit(time.Duration(3*w.conv)*time.Second + startTimeout(n))
		r4 := w.ranges()
		b.Logf("range requests served by the members: %d while starting, %d for 10 changes, %d until every host exited converged",
			r1-r0, r3-r2, r4-r3)
		b.ReportMetric(float64(r1-r0), "ranges-start")
		b.ReportMetric(float64(r3-r2)/10, "ranges/change")
		b.ReportMetric(float64(r4-r3), "ranges-converged-exit")
		b.ReportMetric(took.Seconds(), "s-all-files")
		b.ReportMetric(float64(percentile(lat, 50).Milliseconds()), "p50-repair-ms")
		b.ReportMetric(float64(percentile(lat, 99).Milliseconds()), "p99-repair-ms")
		b.ReportMetric(float64(rev1-rev0)/took.Seconds(), "etcd-rev/s")
		b.ReportMetric(float64(db)/(1<<20), "db-MiB")
		b.ReportMetric(am, "apply-RSS-MiB")
		b.ReportMetric(cm, "compile-RSS-MiB")
		b.ReportMetric(float64(mkb)/1024, "member-RSS-MiB")
		b.ReportMetric(exit.Seconds(), "s-converged-exit")
	}
}
