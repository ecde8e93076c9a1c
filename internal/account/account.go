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
// groups of every source, as login would give them.
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
	"time"
)

// Lookup finds a user by name.
func Lookup(name string) (*user.User, error) {
	u, err := user.Lookup(name)
	if err == nil || nativeNSS || !unknown(err) {
		return u, err
	}
	// getent takes a number for an id: the name must match.
	if u := getentUser(name); u != nil && u.Username == name {
		return u, nil
	}
	return nil, err
}

// LookupID finds a user by numeric id.
func LookupID(uid string) (*user.User, error) {
	u, err := user.LookupId(uid)
	if err == nil || nativeNSS || !unknown(err) {
		return u, err
	}
	if u := getentUser(uid); u != nil && u.Uid == uid {
		return u, nil
	}
	return nil, err
}

// LookupGroup finds a group by name.
func LookupGroup(name string) (*user.Group, error) {
	g, err := user.LookupGroup(name)
	if err == nil || nativeNSS || !unknown(err) {
		return g, err
	}
	if g := getentGroup(name); g != nil && g.Name == name {
		return g, nil
	}
	return nil, err
}

// LookupGroupID finds a group by numeric id.
func LookupGroupID(gid string) (*user.Group, error) {
	g, err := user.LookupGroupId(gid)
	if err == nil || nativeNSS || !unknown(err) {
		return g, err
	}
	if g := getentGroup(gid); g != nil && g.Gid == gid {
		return g, nil
	}
	return nil, err
}

// GroupIDs returns the ids of the groups u is a member of, its primary
// group included: from /etc/group for a user of /etc/passwd, from getent
// for one that only another source knows.
func GroupIDs(u *user.User) ([]string, error) {
	if !nativeNSS {
		if _, err := user.Lookup(u.Username); unknown(err) {
			if ids := getentGroups(u.Username); ids != nil {
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

// getentUser asks getent for the user of a name or id.
func getentUser(key string) *user.User {
	return parsePasswd(getent("passwd", key))
}

// getentGroup asks getent for the group of a name or id.
func getentGroup(key string) *user.Group {
	return parseGroup(getent("group", key))
}

// getentGroups asks getent for the groups of a user, or returns nil.
func getentGroups(name string) []string {
	return parseInitgroups(getent("initgroups", name), name)
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
