package resources

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"syscall"

	"github.com/mgmtpipe/mgmt/internal/account"
)

// credential returns the identity the commands run under, nil for the
// engine's own (see User and Group): with user, the user's uid, its
// primary group unless group names another, and the groups the group
// database lists the user in, its primary one included, as
// initgroups(3) gives them; with group alone, that group, the
// supplementary groups kept.
func (obj *ExecRes) credential() (*syscall.Credential, error) {
	if obj.User == "" && obj.Group == "" {
		return nil, nil
	}
	cred := &syscall.Credential{Uid: uint32(os.Getuid()), Gid: uint32(os.Getgid()), NoSetGroups: true}
	if obj.User != "" {
		u, err := lookupUser(obj.User)
		if err != nil {
			return nil, err
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		ids, err3 := account.GroupIDs(u)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("user %q: reading its ids and groups: %v", obj.User, errors.Join(err1, err2, err3))
		}
		cred.Uid, cred.Gid, cred.NoSetGroups = uint32(uid), uint32(gid), false
		for _, s := range ids {
			g, err := strconv.ParseUint(s, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("user %q: group id %q: %v", obj.User, s, err)
			}
			cred.Groups = append(cred.Groups, uint32(g))
		}
	}
	if obj.Group != "" {
		gid, err := lookupGID(obj.Group)
		if err != nil {
			return nil, err
		}
		cred.Gid = uint32(gid)
	}
	return cred, nil
}

// lookupUser finds a user of the user database by name or numeric id.
func lookupUser(s string) (*user.User, error) {
	var u *user.User
	var err error
	if n, perr := strconv.Atoi(s); perr == nil && n >= 0 {
		u, err = account.LookupID(s)
	} else {
		u, err = account.Lookup(s)
	}
	if err != nil {
		return nil, fmt.Errorf("unknown user %q", s)
	}
	return u, nil
}
