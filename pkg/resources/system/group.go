package system

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("group", func() engine.Res { return &GroupRes{} })
}

// GroupRes manages a group of /etc/group through groupadd, groupmod and
// groupdel. The name is the group name.
type GroupRes struct {
	traits.Base
	traits.Edgeable

	// State is "exists" (the default) or "absent".
	State string `lang:"state" yaml:"state"`
	// GID is the wanted group ID; unset leaves it to groupadd.
	GID *uint32 `lang:"gid" yaml:"gid"`

	// Root is the directory the account files live under (the shadow
	// tools' --root); empty means /.
	Root string `yaml:"-"`

	init *engine.Init
}

// Default returns a new group resource wanting the group to exist.
func (r *GroupRes) Default() engine.Res { return &GroupRes{State: "exists"} }

// Validate checks the parameters.
func (r *GroupRes) Validate() error {
	if !validAccountName(r.Name()) {
		return fmt.Errorf("invalid group name %q", r.Name())
	}
	if r.State != "exists" && r.State != "absent" {
		return fmt.Errorf("state: got %q, want exists or absent", r.State)
	}
	return nil
}

// validAccountName accepts the names shadow-utils accept.
func validAccountName(n string) bool {
	if n == "" || len(n) > 32 || n[0] == '-' {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || c == '-' || c == '.' || (c == '$' && i == len(n)-1)
		if !ok {
			return false
		}
	}
	return true
}

// Init keeps the handle.
func (r *GroupRes) Init(init *engine.Init) error {
	r.init = init
	return nil
}

// Cleanup does nothing.
func (r *GroupRes) Cleanup() error { return nil }

// Watch reports changes of the account files.
func (r *GroupRes) Watch(ctx context.Context) error {
	return watchFiles(ctx, shadowFiles(r.Root), r.init.Running, r.init.Event)
}

// CheckApply creates, changes or deletes the group.
func (r *GroupRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	groups, err := readGroup(r.Root)
	if err != nil {
		return false, err
	}
	g, exists := groups[r.Name()]
	var args []string
	switch {
	case r.State == "absent" && !exists, r.State == "exists" && exists && (r.GID == nil || *r.GID == g.gid):
		return true, nil
	case r.State == "absent":
		args = append([]string{"groupdel"}, rootArgs(r.Root)...)
	case !exists:
		args = append([]string{"groupadd"}, rootArgs(r.Root)...)
		if r.GID != nil {
			args = append(args, "--gid", strconv.FormatUint(uint64(*r.GID), 10))
		}
	default:
		args = append([]string{"groupmod"}, rootArgs(r.Root)...)
		args = append(args, "--gid", strconv.FormatUint(uint64(*r.GID), 10))
	}
	if !apply {
		return false, nil
	}
	args = append(args, "--", r.Name())
	if r.init != nil {
		r.init.Logf("%s: %s", r, args[0])
	}
	if _, err := runCmd(ctx, args[0], args[1:]...); err != nil {
		return false, err
	}
	return false, nil
}

// Cmp compares two group resources.
func (r *GroupRes) Cmp(other engine.Res) error {
	o, ok := other.(*GroupRes)
	if !ok {
		return fmt.Errorf("not a group resource")
	}
	switch {
	case r.State != o.State:
		return fmt.Errorf("state differs: %q vs %q", r.State, o.State)
	case !eqUint32Ptr(r.GID, o.GID):
		return fmt.Errorf("gid differs")
	case r.Root != o.Root:
		return fmt.Errorf("root differs")
	}
	return nil
}

func eqUint32Ptr(a, b *uint32) bool {
	return (a == nil) == (b == nil) && (a == nil || *a == *b)
}

// UIDs identifies the group; user resources look for it.
func (r *GroupRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: "group", Name: r.Name()}}
}

// AutoEdges adds none: users depend on groups, not the other way.
func (r *GroupRes) AutoEdges() (engine.AutoEdge, error) { return &uidBatches{}, nil }
