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
	case obj.rare().Source != res.rare().Source:
		return fmt.Errorf("the source differs")
	case strings.Join(obj.rare().Fragments, "\x00") != strings.Join(res.rare().Fragments, "\x00") || len(obj.rare().Fragments) != len(res.rare().Fragments):
		return fmt.Errorf("the fragments differ")
	case obj.rare().Recurse != res.rare().Recurse:
		return fmt.Errorf("recurse differs")
	case obj.rare().Force != res.rare().Force:
		return fmt.Errorf("force differs")
	case obj.Mode != res.Mode:
		return fmt.Errorf("the mode differs")
	case obj.Owner != res.Owner:
		return fmt.Errorf("the owner differs")
	case obj.Group != res.Group:
		return fmt.Errorf("the group differs")
	case obj.rare().Symlink != res.rare().Symlink:
		return fmt.Errorf("symlink differs")
	case obj.rare().Purge != res.rare().Purge || (obj.rare().PurgeDirs == nil || *obj.rare().PurgeDirs) != (res.rare().PurgeDirs == nil || *res.rare().PurgeDirs):
		return fmt.Errorf("purge differs")
	case !sameStr(obj.rare().SELinux, res.rare().SELinux):
		return fmt.Errorf("the selinux context differs")
	case !sameStr(obj.rare().SELType, res.rare().SELType) || !sameStr(obj.rare().SELUser, res.rare().SELUser) ||
		!sameStr(obj.rare().SELRole, res.rare().SELRole) || !sameStr(obj.rare().SELRange, res.rare().SELRange):
		return fmt.Errorf("a part of the selinux context differs")
	case obj.links() != res.links():
		return fmt.Errorf("links differs")
	case obj.keepsContent() != res.keepsContent():
		return fmt.Errorf("replace differs")
	case obj.hidesDiff() != res.hidesDiff():
		return fmt.Errorf("show_diff differs")
	case obj.rare().Backup != res.rare().Backup || obj.backupDigest() != res.backupDigest() || obj.rare().BackupPuppetConf != res.rare().BackupPuppetConf:
		return fmt.Errorf("the backup differs")
	case obj.rare().ValidateCmd != res.rare().ValidateCmd || obj.validateReplacement() != res.validateReplacement():
		return fmt.Errorf("validate_cmd differs")
	}
	return nil
}

// sameStr reports whether two optional strings are both unset or equal.
func sameStr(a, b *string) bool {
	return a == b || a != nil && b != nil && *a == *b
}
