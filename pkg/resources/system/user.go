package system

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("user", func() engine.Res { return &UserRes{} })
}

// UserRes manages a user of /etc/passwd through useradd, usermod and
// userdel. The name is the login name. Unset parameters are left alone.
type UserRes struct {
	traits.Base
	traits.Edgeable

	// State is "exists" (the default) or "absent".
	State string `lang:"state" yaml:"state"`
	// UID is the wanted user ID.
	UID *uint32 `lang:"uid" yaml:"uid"`
	// GID is the primary group by ID; Group is the same by name (set one).
	GID   *uint32 `lang:"gid" yaml:"gid"`
	Group *string `lang:"group" yaml:"group"`
	// Groups is the exact list of supplementary groups.
	Groups []string `lang:"groups" yaml:"groups"`
	// HomeDir is the home directory (not created: only recorded).
	HomeDir *string `lang:"homedir" yaml:"homedir"`
	// Shell is the login shell.
	Shell *string `lang:"shell" yaml:"shell"`
	// Comment is the comment (GECOS) field, usually the full name,
	// compared byte for byte.
	Comment *string `lang:"comment" yaml:"comment"`
	// AllowDuplicateUID lets the UID be shared with another user. The
	// user would then stand for that other account (uid 0: root), so an
	// exporter may not set it.
	AllowDuplicateUID bool `lang:"allowduplicateuid" yaml:"allowduplicateuid" collect:"local"`

	// Root is the directory the account files live under (the shadow
	// tools' --root); empty means /.
	Root string `yaml:"-"`

	init *engine.Init
}

// Default returns a new user resource wanting the user to exist.
func (r *UserRes) Default() engine.Res { return &UserRes{State: "exists"} }

// Validate checks the parameters.
func (r *UserRes) Validate() error {
	if !validAccountName(r.Name()) {
		return fmt.Errorf("invalid user name %q", r.Name())
	}
	if r.State != "exists" && r.State != "absent" {
		return fmt.Errorf("state: got %q, want exists or absent", r.State)
	}
	if r.GID != nil && r.Group != nil {
		return fmt.Errorf("gid and group are both set: set one")
	}
	if r.Group != nil && !validAccountName(*r.Group) {
		return fmt.Errorf("invalid group name %q", *r.Group)
	}
	for _, g := range r.Groups {
		if !validAccountName(g) {
			return fmt.Errorf("groups: invalid group name %q", g)
		}
	}
	if r.Comment != nil && strings.ContainsAny(*r.Comment, ":\n") {
		return fmt.Errorf("invalid comment %q: a comment cannot hold ':' or a newline", *r.Comment)
	}
	for _, s := range []*string{r.HomeDir, r.Shell} {
		if s != nil && (strings.ContainsAny(*s, ":\n") || !strings.HasPrefix(*s, "/")) {
			return fmt.Errorf("invalid path %q: want an absolute path without ':'", *s)
		}
	}
	return nil
}

// Init keeps the handle.
func (r *UserRes) Init(init *engine.Init) error {
	r.init = init
	return nil
}

// Cleanup does nothing.
func (r *UserRes) Cleanup() error { return nil }

// Watch reports changes of the account files.
func (r *UserRes) Watch(ctx context.Context) error {
	return watchFiles(ctx, shadowFiles(r.Root), r.init.Running, r.init.Event)
}

// userArgs returns the options of useradd/usermod that repair the
// differences between the wanted user and the existing entry u (nil when it
// does not exist), or nil if there are none.
func (r *UserRes) userArgs(u *passwdEntry, groups map[string]groupEntry) ([]string, error) {
	var args []string
	if r.UID != nil && (u == nil || u.uid != *r.UID) {
		args = append(args, "--uid", strconv.FormatUint(uint64(*r.UID), 10))
		if r.AllowDuplicateUID {
			args = append(args, "--non-unique")
		}
	}
	switch {
	case r.GID != nil && (u == nil || u.gid != *r.GID):
		args = append(args, "--gid", strconv.FormatUint(uint64(*r.GID), 10))
	case r.Group != nil:
		g, ok := groups[*r.Group]
		if !ok {
			return nil, fmt.Errorf("group %s does not exist", *r.Group)
		}
		if u == nil || u.gid != g.gid {
			args = append(args, "--gid", *r.Group)
		}
	}
	if r.Groups != nil {
		want := slices.Clone(r.Groups)
		sort.Strings(want)
		want = slices.Compact(want)
		var have []string
		if u != nil {
			have = supplementaryGroups(groups, u.name)
		}
		if !slices.Equal(want, have) && (u != nil || len(want) > 0) {
			args = append(args, "--groups", strings.Join(want, ","))
		}
	}
	if r.HomeDir != nil && (u == nil || u.home != *r.HomeDir) {
		args = append(args, "--home", *r.HomeDir)
	}
	if r.Shell != nil && (u == nil || u.shell != *r.Shell) {
		args = append(args, "--shell", *r.Shell)
	}
	if r.Comment != nil && (u == nil || u.comment != *r.Comment) {
		args = append(args, "--comment", *r.Comment)
	}
	return args, nil
}

// CheckApply creates, changes or deletes the user.
func (r *UserRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	users, err := readPasswd(r.Root)
	if err != nil {
		return false, err
	}
	u, exists := users[r.Name()]
	var cmd []string
	switch {
	case r.State == "absent" && !exists:
		return true, nil
	case r.State == "absent":
		cmd = []string{"userdel"}
	default:
		groups, err := readGroup(r.Root)
		if err != nil {
			return false, err
		}
		var cur *passwdEntry
		if exists {
			cur = &u
		}
		args, err := r.userArgs(cur, groups)
		if err != nil {
			return false, err
		}
		if exists && len(args) == 0 {
			return true, nil
		}
		cmd = append([]string{"usermod"}, args...)
		if !exists {
			// the home directory is only recorded, whatever login.defs says
			cmd = append([]string{"useradd", "--no-create-home"}, args...)
		}
	}
	if !apply {
		return false, nil
	}
	if r.init != nil {
		r.init.Logf("%s: %s", r, strings.Join(cmd, " "))
	}
	args := append(append(rootArgs(r.Root), cmd[1:]...), "--", r.Name())
	if _, err := runCmd(ctx, cmd[0], args...); err != nil {
		return false, err
	}
	return false, nil
}

// Cmp compares two user resources.
func (r *UserRes) Cmp(other engine.Res) error {
	o, ok := other.(*UserRes)
	if !ok {
		return fmt.Errorf("not a user resource")
	}
	switch {
	case r.State != o.State:
		return fmt.Errorf("state differs: %q vs %q", r.State, o.State)
	case !eqUint32Ptr(r.UID, o.UID):
		return fmt.Errorf("uid differs")
	case !eqUint32Ptr(r.GID, o.GID):
		return fmt.Errorf("gid differs")
	case !eqStrPtr(r.Group, o.Group):
		return fmt.Errorf("group differs")
	case (r.Groups == nil) != (o.Groups == nil) || !slices.Equal(r.Groups, o.Groups):
		return fmt.Errorf("groups differ")
	case !eqStrPtr(r.HomeDir, o.HomeDir):
		return fmt.Errorf("homedir differs")
	case !eqStrPtr(r.Shell, o.Shell):
		return fmt.Errorf("shell differs")
	case !eqStrPtr(r.Comment, o.Comment):
		return fmt.Errorf("comment differs")
	case r.AllowDuplicateUID != o.AllowDuplicateUID:
		return fmt.Errorf("allowduplicateuid differs")
	case r.Root != o.Root:
		return fmt.Errorf("root differs")
	}
	return nil
}

func eqStrPtr(a, b *string) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// UIDs identifies the user.
func (r *UserRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: "user", Name: r.Name()}}
}

// AutoEdges puts the user after the group resources of its primary and
// supplementary groups, or before them when the user is to be removed (a
// group cannot be deleted while it is a user's primary group).
func (r *UserRes) AutoEdges() (engine.AutoEdge, error) {
	rev := r.State == "absent"
	var uids []engine.ResUID
	if r.Group != nil {
		uids = append(uids, &engine.BaseUID{Kind: "group", Name: *r.Group, Reversed: &rev})
	}
	for _, g := range r.Groups {
		uids = append(uids, &engine.BaseUID{Kind: "group", Name: g, Reversed: &rev})
	}
	return &uidBatches{batches: [][]engine.ResUID{uids}}, nil
}
