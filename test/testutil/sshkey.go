package testutil

import (
	"crypto/ed25519"
	"encoding/base64"
	"testing"

	"golang.org/x/crypto/ssh"
)

// SSHKey returns the type and base64 blob of a fresh ed25519 public key,
// as an authorized_keys line spells them.
func SSHKey(t testing.TB) (string, string) {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	k, err := ssh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return k.Type(), base64.StdEncoding.EncodeToString(k.Marshal())
}
