// Package account looks users and groups up in the system's account
// databases, as os/user does, for tools that are built without cgo.
//
// The tools are static binaries (the Makefile builds them with
// CGO_ENABLED=0): they start faster and need no C library, but os/user
// then reads only /etc/passwd and /etc/group, and knows nothing of the
// other sources /etc/nsswitch.conf may name (LDAP through sssd or nslcd,
// systemd's dynamic users, libnss-extrausers...). So a name or id that
// os/user does not find there is asked of getent(1), which goes through
// the C library's name service switch, every source included; a binary
// built with cgo asks the C library itself and never runs getent.
//
// getent is looked for only at /usr/bin/getent and /bin/getent (Debian's
// libc-bin, which every system has), with an empty environment and a
// deadline of 10 seconds, the time a slow directory server gets; an
// account it does not know either is unknown. A user found through
// getent has its groups from getent as well ("getent initgroups"), the
// groups of every source, as login would give them. getent's answers are
// used again for answerTTL (see resolver).
//
// Order: /etc/passwd and /etc/group come first. On a system whose
// nsswitch.conf names another source before "files" for a name that both
// hold, the file's entry wins here, where the C library would take the
// other; no common setup does that.
package account

import (
	"context"
	"errors"
	"os/exec"
	"os/user"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Lookup finds a user by name.
func Lookup(name string) (*user.User, error) {
	u, err := user.Lookup(name)
	// getent takes a number for an id: the name must match.
	return orGetent(u, err, func() *user.User { return accounts.user(name) }, func(u *user.User) bool { return u.Username == name })
}

// LookupID finds a user by numeric id.
func LookupID(uid string) (*user.User, error) {
	u, err := user.LookupId(uid)
	return orGetent(u, err, func() *user.User { return accounts.user(uid) }, func(u *user.User) bool { return u.Uid == uid })
}

// LookupGroup finds a group by name.
func LookupGroup(name string) (*user.Group, error) {
	g, err := user.LookupGroup(name)
	return orGetent(g, err, func() *user.Group { return accounts.group(name) }, func(g *user.Group) bool { return g.Name == name })
}

// LookupGroupID finds a group by numeric id.
func LookupGroupID(gid string) (*user.Group, error) {
	g, err := user.LookupGroupId(gid)
	return orGetent(g, err, func() *user.Group { return accounts.group(gid) }, func(g *user.Group) bool { return g.Gid == gid })
}

// orGetent returns what os/user found (v, err), or, when it did not know
// the account and does not ask the C library itself, what ask finds
// through getent and match accepts; err when getent knows it no better.
func orGetent[T any](v *T, err error, ask func() *T, match func(*T) bool) (*T, error) {
	if err == nil || nativeNSS || !unknown(err) {
		return v, err
	}
	if w := ask(); w != nil && match(w) {
		return w, nil
	}
	return nil, err
}

// GroupIDs returns the ids of the groups u is a member of, its primary
// group included: from /etc/group for a user of /etc/passwd, from getent
// for one that only another source knows.
func GroupIDs(u *user.User) ([]string, error) {
	if !nativeNSS {
		if _, err := user.Lookup(u.Username); unknown(err) {
			if ids := accounts.groups(u.Username); ids != nil {
				// getent lists the groups the user is a member
				// of, not always its primary group.
				if u.Gid != "" && !slices.Contains(ids, u.Gid) {
					ids = append([]string{u.Gid}, ids...)
				}
				return ids, nil
			}
		}
	}
	return u.GroupIds()
}

// unknown reports whether err says that the account does not exist.
func unknown(err error) bool {
	var (
		un  user.UnknownUserError
		uid user.UnknownUserIdError
		gn  user.UnknownGroupError
		gid user.UnknownGroupIdError
	)
	return errors.As(err, &un) || errors.As(err, &uid) || errors.As(err, &gn) || errors.As(err, &gid)
}

// getentTimeout bounds one run of getent.
const getentTimeout = 10 * time.Second

// getentPaths are where getent is looked for.
var getentPaths = [...]string{"/usr/bin/getent", "/bin/getent"}

// getent runs getent DATABASE KEY and returns its first line, or "" when
// it knows no such entry, fails, or is not there.
func getent(database, key string) string {
	if key == "" || strings.ContainsAny(key, "\x00\n") || strings.HasPrefix(key, "-") {
		return ""
	}
	for _, p := range getentPaths {
		ctx, cancel := context.WithTimeout(context.Background(), getentTimeout)
		cmd := exec.CommandContext(ctx, p, database, key)
		cmd.Env = []string{}
		out, err := cmd.Output()
		cancel()
		var ee *exec.Error
		if errors.As(err, &ee) {
			continue // not at this path
		}
		if err != nil {
			return ""
		}
		line, _, _ := strings.Cut(string(out), "\n")
		return line
	}
	return ""
}

// answerTTL is how long an answer of getent is used again. Name services
// keep theirs about as long (sssd keeps what it did not find for 15 s,
// nscd longer), and the checks of a graph of many files owned by an
// account of a directory then start one getent a few seconds, not one
// each.
const answerTTL = 5 * time.Second

// maxAnswers is the size from which the answers past answerTTL are
// dropped, when a new question comes.
const maxAnswers = 1024

// A resolver asks getent (its run function) and keeps the answers for
// answerTTL; a question asked again while it is being answered waits for
// that answer rather than starting getent again (the checks of many
// resources ask the same at once).
type resolver struct {
	run func(database, key string) string
	now func() time.Time

	mu      sync.Mutex
	answers map[question]*answer
}

type question struct{ database, key string }

type answer struct {
	ready chan struct{} // closed once line and at are set
	line  string
	at    time.Time
}

func newResolver(run func(database, key string) string, now func() time.Time) *resolver {
	return &resolver{run: run, now: now, answers: map[question]*answer{}}
}

// accounts is the process's resolver.
var accounts = newResolver(getent, time.Now)

// ask returns getent's answer to DATABASE KEY, from the last
// answerTTL if it has one.
func (r *resolver) ask(database, key string) string {
	q := question{database, key}
	r.mu.Lock()
	if a := r.answers[q]; a != nil {
		select {
		case <-a.ready:
			if r.now().Sub(a.at) < answerTTL {
				r.mu.Unlock()
				return a.line
			}
		default:
			r.mu.Unlock()
			<-a.ready
			return a.line
		}
	}
	if len(r.answers) >= maxAnswers {
		r.pruneLocked()
	}
	a := &answer{ready: make(chan struct{})}
	r.answers[q] = a
	r.mu.Unlock()
	a.line = r.run(database, key)
	a.at = r.now()
	close(a.ready)
	return a.line
}

// pruneLocked drops the answers older than answerTTL.
func (r *resolver) pruneLocked() {
	now := r.now()
	for q, a := range r.answers {
		select {
		case <-a.ready:
			if now.Sub(a.at) >= answerTTL {
				delete(r.answers, q)
			}
		default:
		}
	}
}

// user asks for the user of a name or id.
func (r *resolver) user(key string) *user.User {
	return parsePasswd(r.ask("passwd", key))
}

// group asks for the group of a name or id.
func (r *resolver) group(key string) *user.Group {
	return parseGroup(r.ask("group", key))
}

// groups asks for the groups of a user, or returns nil.
func (r *resolver) groups(name string) []string {
	return parseInitgroups(r.ask("initgroups", name), name)
}

// parsePasswd reads a line of the passwd database
// (name:password:uid:gid:gecos:home:shell), or returns nil.
func parsePasswd(line string) *user.User {
	f := strings.Split(line, ":")
	if len(f) != 7 || f[0] == "" || !isID(f[2]) || !isID(f[3]) {
		return nil
	}
	name, _, _ := strings.Cut(f[4], ",") // the full name, before the rest of GECOS
	return &user.User{Username: f[0], Uid: f[2], Gid: f[3], Name: name, HomeDir: f[5]}
}

// parseGroup reads a line of the group database (name:password:gid:members),
// or returns nil.
func parseGroup(line string) *user.Group {
	f := strings.Split(line, ":")
	if len(f) != 4 || f[0] == "" || !isID(f[2]) {
		return nil
	}
	return &user.Group{Name: f[0], Gid: f[2]}
}

// parseInitgroups reads what "getent initgroups NAME" prints: the name,
// then the ids of its groups, separated by blanks. It returns nil for
// anything else.
func parseInitgroups(line, name string) []string {
	f := strings.Fields(line)
	if len(f) == 0 || f[0] != name {
		return nil
	}
	ids := []string{}
	for _, id := range f[1:] {
		if !isID(id) {
			return nil
		}
		ids = append(ids, id)
	}
	return ids
}

// isID reports whether s is a decimal id of 32 bits.
func isID(s string) bool {
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}
