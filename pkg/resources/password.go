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

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
	"github.com/mgmtpipe/mgmt/pkg/resources/internal/fswatch"
)

func init() {
	engine.RegisterResource("password", func() engine.Res { return &PasswordRes{Length: 64} })
}

// passwordAlphabet is the set of characters of generated passwords.
const passwordAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// PasswordRes generates a random password, keeps it in the file
// "password" of its VarDir (mode 0600), sends it as "password", and
// generates a new one on a refresh. Editing or deleting the saved file is
// repaired like any drift.
type PasswordRes struct {
	traits.Base
	traits.Refreshable
	traits.Sendable

	init *engine.Init

	// Length is the number of characters (default 64).
	Length uint16 `lang:"length" yaml:"length"`

	file string
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
	if init.VarDir == nil {
		return fmt.Errorf("no state directory")
	}
	d, err := init.VarDir("")
	if err != nil {
		return err
	}
	obj.file = filepath.Join(d, "password")
	return nil
}

// Cleanup does nothing: the password stays saved.
func (obj *PasswordRes) Cleanup() error { return nil }

// Sends returns the keys password sends.
func (obj *PasswordRes) Sends() any { return &PasswordSends{} }

// Watch follows the saved file.
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

// CheckApply keeps a valid saved password, generating one when it is
// missing, invalid or a refresh arrived, and sends it.
func (obj *PasswordRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	refresh := obj.init.Refresh != nil && obj.init.Refresh()
	have, err := os.ReadFile(obj.file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	if err == nil && obj.valid(have) && !refresh {
		return true, obj.send(string(have))
	}
	if !apply {
		return false, nil
	}
	p, err := generatePassword(int(obj.Length))
	if err != nil {
		return false, err
	}
	if err := writeAtomic(ctx, obj.file, []byte(p), 0o600, -1, -1); err != nil {
		return false, err
	}
	if obj.init.Logf != nil {
		obj.init.Logf("generated a new password")
	}
	return false, obj.send(p)
}

func (obj *PasswordRes) send(p string) error {
	if obj.init.Send == nil {
		return nil
	}
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
	if obj.Length != res.Length {
		return fmt.Errorf("the length differs")
	}
	return nil
}
