package account

import (
	"fmt"
	"os/user"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

func TestParsePasswd(t *testing.T) {
	for _, tc := range []struct {
		line string
		want *user.User
	}{
		{"alice:x:1001:1002:Alice Liddell,Room 1,,:/home/alice:/bin/bash",
			&user.User{Username: "alice", Uid: "1001", Gid: "1002", Name: "Alice Liddell", HomeDir: "/home/alice"}},
		{"svc:*:4294967294:0::/:/usr/sbin/nologin", &user.User{Username: "svc", Uid: "4294967294", Gid: "0", HomeDir: "/"}},
		{"", nil},
		{"alice:x:1001:1002:/home/alice:/bin/bash", nil},     // six fields
		{"alice:x:-1:1002::/home/alice:/bin/bash", nil},      // negative id
		{"alice:x:4294967296:1::/home/alice:/bin/bash", nil}, // above 32 bits
		{":x:1:1::/:/bin/sh", nil},                           // no name
	} {
		got := parsePasswd(tc.line)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("parsePasswd(%q) = %+v, want %+v", tc.line, got, tc.want)
		}
	}
}

func TestParseGroup(t *testing.T) {
	for _, tc := range []struct {
		line string
		want *user.Group
	}{
		{"staff:x:50:alice,bob", &user.Group{Name: "staff", Gid: "50"}},
		{"empty:*:51:", &user.Group{Name: "empty", Gid: "51"}},
		{"staff:x:50", nil},
		{"staff:x:fifty:", nil},
	} {
		got := parseGroup(tc.line)
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("parseGroup(%q) = %+v, want %+v", tc.line, got, tc.want)
		}
	}
}

func TestParseInitgroups(t *testing.T) {
	for _, tc := range []struct {
		line, name string
		want       []string
	}{
		{"alice           1002 50 51", "alice", []string{"1002", "50", "51"}},
		{"root                 ", "root", []string{}},
		{"bob 1 2", "alice", nil},
		{"alice 1 x", "alice", nil},
		{"", "alice", nil},
	} {
		got := parseInitgroups(tc.line, tc.name)
		if (got == nil) != (tc.want == nil) || !slices.Equal(got, tc.want) {
			t.Errorf("parseInitgroups(%q) = %q, want %q", tc.line, got, tc.want)
		}
	}
}

func TestGetentRefusesOptions(t *testing.T) {
	for _, key := range []string{"", "-s", "--help", "a\nb", "a\x00b"} {
		if got := getent("passwd", key); got != "" {
			t.Errorf("getent(passwd, %q) = %q", key, got)
		}
	}
}

// TestExtraUsers looks up a user and groups that only libnss-extrausers
// knows (/var/lib/extrausers, named in nsswitch.conf after files), as the
// static tools do: os/user built without cgo does not see them, getent
// does.
func TestExtraUsers(t *testing.T) {
	acc := testutil.NeedExtraUsers(t)
	if !nativeNSS {
		if _, err := user.Lookup(acc.User); err == nil {
			t.Fatalf("os/user without cgo found %s: it reads only /etc/passwd", acc.User)
		}
	}
	for name, lookup := range map[string]func(string) *user.User{"user": accounts.user, "Lookup": mustUser(Lookup)} {
		u := lookup(acc.User)
		if u == nil || u.Uid != acc.UID || u.Gid != acc.GID || u.HomeDir != "/nonexistent" || u.Name != "Extra User" {
			t.Errorf("%s(%s) = %+v", name, acc.User, u)
		}
	}
	if u, err := LookupID(acc.UID); err != nil || u.Username != acc.User {
		t.Errorf("LookupID(%s) = %+v, %v", acc.UID, u, err)
	}
	if g, err := LookupGroup(acc.Group); err != nil || g.Gid != acc.GID {
		t.Errorf("LookupGroup(%s) = %+v, %v", acc.Group, g, err)
	}
	if g, err := LookupGroupID(acc.SuppGID); err != nil || g.Name != acc.Supp {
		t.Errorf("LookupGroupID(%s) = %+v, %v", acc.SuppGID, g, err)
	}
	u, err := Lookup(acc.User)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := GroupIDs(u)
	if err != nil || !slices.Contains(ids, acc.GID) || !slices.Contains(ids, acc.SuppGID) {
		t.Errorf("GroupIDs(%s) = %q, %v; want %s and %s among them", acc.User, ids, err, acc.GID, acc.SuppGID)
	}
	if ids := accounts.groups(acc.User); !slices.Contains(ids, acc.SuppGID) {
		t.Errorf("groups(%s) = %q", acc.User, ids)
	}
	if _, err := Lookup(acc.User + "-none"); err == nil {
		t.Errorf("Lookup found a user no source has")
	}
	if _, err := LookupGroupID("4294967290"); err == nil {
		t.Errorf("LookupGroupID found a group no source has")
	}
}

func mustUser(f func(string) (*user.User, error)) func(string) *user.User {
	return func(s string) *user.User {
		u, _ := f(s)
		return u
	}
}

// TestResolverAnswersOnce asks for one account of another source from 50
// goroutines at once, through a resolver that counts its runs of getent
// and reads a clock the test moves: getent runs once, its answer serves
// every question for answerTTL, and runs again after it.
func TestResolverAnswersOnce(t *testing.T) {
	acc := testutil.NeedExtraUsers(t)
	var runs atomic.Int32
	var clock atomic.Int64
	r := newResolver(func(database, key string) string {
		runs.Add(1)
		return getent(database, key)
	}, func() time.Time { return time.Unix(0, clock.Load()) })
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Go(func() {
			if u := r.user(acc.User); u == nil || u.Uid != acc.UID {
				t.Errorf("user(%s) = %+v", acc.User, u)
			}
		})
	}
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Fatalf("50 questions at once ran getent %d times, want 1", n)
	}
	clock.Add(int64(answerTTL - time.Millisecond))
	r.user(acc.User)
	if n := runs.Load(); n != 1 {
		t.Fatalf("a question within %s ran getent again (%d runs)", answerTTL, n)
	}
	clock.Add(int64(2 * time.Millisecond))
	if u := r.user(acc.User); u == nil || u.Uid != acc.UID {
		t.Fatalf("user(%s) after %s = %+v", acc.User, answerTTL, u)
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("a question after %s ran getent %d times in all, want 2", answerTTL, n)
	}
	// another question is another run
	if r.user(acc.User+"-none") != nil || runs.Load() != 3 {
		t.Fatalf("an unknown user was found, or asked without a run (%d runs)", runs.Load())
	}
}

// TestResolverPrunes fills a resolver past maxAnswers: the answers older
// than answerTTL go, the others stay.
func TestResolverPrunes(t *testing.T) {
	var clock atomic.Int64
	r := newResolver(func(database, key string) string { return "" }, func() time.Time { return time.Unix(0, clock.Load()) })
	for i := 0; i < maxAnswers; i++ {
		r.ask("passwd", strconv.Itoa(i))
	}
	clock.Add(int64(answerTTL))
	r.ask("passwd", "fresh1")
	if len(r.answers) != 1 {
		t.Fatalf("%d answers after a prune of the old ones, want 1", len(r.answers))
	}
	for i := 0; i < maxAnswers; i++ {
		r.ask("passwd", strconv.Itoa(i))
	}
	if len(r.answers) != maxAnswers+1 {
		t.Fatalf("%d answers, want %d: fresh ones were dropped", len(r.answers), maxAnswers+1)
	}
}
