package resources

import (
	"fmt"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// Cmp compares two file resources.
func (obj *FileRes) Cmp(r engine.Res) error {
	res, ok := r.(*FileRes)
	if !ok {
		return fmt.Errorf("not a %T", obj)
	}
	switch {
	case obj.path() != res.path():
		return fmt.Errorf("the path differs")
	case obj.State != res.State:
		return fmt.Errorf("the state differs")
	case !sameStr(obj.Content, res.Content):
		return fmt.Errorf("the content differs")
	case obj.Source != res.Source:
		return fmt.Errorf("the source differs")
	case strings.Join(obj.Fragments, "\x00") != strings.Join(res.Fragments, "\x00") || len(obj.Fragments) != len(res.Fragments):
		return fmt.Errorf("the fragments differ")
	case obj.Recurse != res.Recurse:
		return fmt.Errorf("recurse differs")
	case obj.Force != res.Force:
		return fmt.Errorf("force differs")
	case obj.Mode != res.Mode:
		return fmt.Errorf("the mode differs")
	case obj.Owner != res.Owner:
		return fmt.Errorf("the owner differs")
	case obj.Group != res.Group:
		return fmt.Errorf("the group differs")
	case obj.Symlink != res.Symlink:
		return fmt.Errorf("symlink differs")
	case obj.Purge != res.Purge:
		return fmt.Errorf("purge differs")
	case !sameStr(obj.SELinux, res.SELinux):
		return fmt.Errorf("the selinux context differs")
	case !sameStr(obj.SELType, res.SELType) || !sameStr(obj.SELUser, res.SELUser) ||
		!sameStr(obj.SELRole, res.SELRole) || !sameStr(obj.SELRange, res.SELRange):
		return fmt.Errorf("a part of the selinux context differs")
	case obj.keepsContent() != res.keepsContent():
		return fmt.Errorf("replace differs")
	case obj.hidesDiff() != res.hidesDiff():
		return fmt.Errorf("show_diff differs")
	case obj.Backup != res.Backup || obj.backupDigest() != res.backupDigest() || obj.BackupPuppetConf != res.BackupPuppetConf:
		return fmt.Errorf("the backup differs")
	case obj.ValidateCmd != res.ValidateCmd || obj.validateReplacement() != res.validateReplacement():
		return fmt.Errorf("validate_cmd differs")
	}
	return nil
}

// sameStr reports whether two optional strings are both unset or equal.
func sameStr(a, b *string) bool {
	return a == b || a != nil && b != nil && *a == *b
}
