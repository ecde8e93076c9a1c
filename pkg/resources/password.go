package resources

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"os"
	"path/filepath"
	"sync"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("password", func() engine.Res { return &PasswordRes{Length: 64} })
}

// passwordAlphabet is the set of characters of generated passwords.
const passwordAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// PasswordRes generates a random password, sends it as "password", and
// generates a new one on a refresh. With saved, the password is kept in
// the file "password" of its VarDir (mode 0600, in a 0700 directory:
// only root, or the user mgmt-apply runs as, reads it), so it survives a
// restart, and editing or deleting that file is repaired like any drift.
// Without saved (the default, as upstream), the cleartext never reaches
// the disk: the password lives in the process, a restart generates a new
// one (and sends it), and a file an earlier saved run left is read once
// and removed.
type PasswordRes struct {
	traits.Base
	traits.Refreshable
	traits.Sendable

	init *engine.Init

	// Length is the number of characters (default 64).
	Length uint16 `lang:"length" yaml:"length"`
	// Saved keeps the password, in the clear, in the resource's state
	// directory across restarts.
	Saved bool `lang:"saved" yaml:"saved"`
	// CheckRecovery generates a new password when the one kept is not a
	// valid password of this length (edited, or the length changed);
	// without it that is an error, so a password is never replaced
	// unnoticed.
	CheckRecovery bool `lang:"check_recovery" yaml:"check_recovery"`

	file string
	mu   sync.Mutex
	have *string // the password this process holds
}

// PasswordSends is what a password resource sends.
type PasswordSends struct {
	// Password is the password, for a receiving resource's parameter.
	Password *string `lang:"password"`
}

// Default returns a password resource.
func (obj *PasswordRes) Default() engine.Res { return &PasswordRes{Length: 64} }

// Validate requires a positive length.
func (obj *PasswordRes) Validate() error {
	if obj.Length == 0 {
		return fmt.Errorf("length must be positive")
	}
	return nil
}

// Init finds the file of the saved password.
func (obj *PasswordRes) Init(init *engine.Init) error {
	obj.init = init
	d, err := init.VarDir("")
	if err != nil {
		return err
	}
	obj.file = filepath.Join(d, "password")
	return nil
}

// Cleanup does nothing: the password stays saved.
func (obj *PasswordRes) Cleanup() error { return nil }

// SendsSecrets tells the engine never to show the texts of the
// resources that receive the password.
func (obj *PasswordRes) SendsSecrets() bool { return true }

// Sends returns the keys password sends.
func (obj *PasswordRes) Sends() any { return &PasswordSends{} }

// Watch follows the saved file (without saved, a file appearing there is
// removed).
func (obj *PasswordRes) Watch(ctx context.Context) error {
	w, err := fswatch.Default()
	if err != nil {
		return err
	}
	s, err := w.Subscribe(obj.file, fswatch.Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	obj.init.Running()
	return forwardEvents(ctx, []*fswatch.Sub{s}, obj.init.Event)
}

func (obj *PasswordRes) valid(p []byte) bool {
	if len(p) != int(obj.Length) {
		return false
	}
	for _, c := range p {
		if !containsByte(passwordAlphabet, c) {
			return false
		}
	}
	return true
}

func containsByte(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// CheckApply keeps a valid password, generating one when there is none,
// the one kept is invalid (with check_recovery) or a refresh arrived, and
// sends it.
func (obj *PasswordRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	refresh := obj.init.Refresh()
	have, onDisk, err := obj.current()
	if err != nil {
		return false, err
	}
	if have != nil && !obj.valid([]byte(*have)) {
		if !obj.CheckRecovery {
			return false, fmt.Errorf("the password kept is not %d characters of [a-zA-Z0-9] (edited, or the length changed): set check_recovery to generate a new one", obj.Length)
		}
		have = nil
	}
	if have != nil && !refresh && onDisk == obj.Saved {
		return true, obj.send(*have)
	}
	if !apply {
		return false, nil
	}
	p := have
	if p == nil || refresh {
		np, err := generatePassword(int(obj.Length))
		if err != nil {
			return false, err
		}
		p = &np
		obj.init.Logf("generated a new password")
	}
	if obj.Saved {
		if err := writeAtomic(ctx, obj.file, []byte(*p), 0o600, -1, -1); err != nil {
			return false, err
		}
	} else if onDisk {
		if err := os.Remove(obj.file); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
	obj.mu.Lock()
	obj.have = p
	obj.mu.Unlock()
	return false, obj.send(*p)
}

// current returns the password kept (nil for none) and whether a saved
// file is there. With saved, the file is the password. Without, it is the
// one the process holds; a file (left by a saved run) is taken only when
// the process holds none yet, so a later run keeps its password.
func (obj *PasswordRes) current() (*string, bool, error) {
	b, err := os.ReadFile(obj.file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, false, err
	}
	onDisk := err == nil
	if !obj.Saved {
		obj.mu.Lock()
		have := obj.have
		obj.mu.Unlock()
		if have != nil || !onDisk {
			return have, onDisk, nil
		}
	}
	if !onDisk {
		return nil, false, nil // deleted: drift to repair
	}
	saved := string(b)
	return &saved, true, nil
}

func (obj *PasswordRes) send(p string) error {
	return obj.init.Send(&PasswordSends{Password: &p})
}

func generatePassword(n int) (string, error) {
	b := make([]byte, n)
	max := big.NewInt(int64(len(passwordAlphabet)))
	for i := range b {
		k, err := rand.Int(rand.Reader, max)
		if err != nil {
			return "", err
		}
		b[i] = passwordAlphabet[k.Int64()]
	}
	return string(b), nil
}

// Cmp compares two password resources.
func (obj *PasswordRes) Cmp(r engine.Res) error {
	res, ok := r.(*PasswordRes)
	if !ok {
		return fmt.Errorf("not a %T", obj)
	}
	if obj.Length != res.Length || obj.Saved != res.Saved || obj.CheckRecovery != res.CheckRecovery {
		return fmt.Errorf("the length, saved or check_recovery differs")
	}
	return nil
}
