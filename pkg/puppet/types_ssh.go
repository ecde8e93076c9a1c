package puppet

import (
	"path"
	"regexp"
	"strings"
)

// sshAuthorizedKeyMapping translates sshkeys_core's ssh_authorized_key
// (parsed provider) to our ssh:authorized_key kind matching by comment,
// which is how the provider finds a key: by its name. The name becomes
// the comment, type (aliases resolved), key, options and user are copied,
// and a target becomes file when its directory is named ".ssh" (the one
// kind of directory our kind creates when it is missing; the provider
// creates any). The provider cannot write keys without user, so a
// resource without one falls back, as does a key or option the type
// would refuse, drop_privileges => false (the provider then writes only
// through a path it trusts) and a resource without ensure (the provider
// then changes an existing key only).
var sshAuthorizedKeyMapping = &mapping{kind: "ssh:authorized_key", title: true, whole: sshKeyWhole, rules: map[string]rule{
	"type":            enum("type", sshKeyTypes),
	"key":             sshKeyBlob,
	"user":            toStr("user"),
	"target":          sshKeyTarget,
	"options":         sshKeyOptions,
	"drop_privileges": only("true"),
	"provider":        only("parsed"),
}}

// sshKeyTypes are the key types the Puppet type accepts, with its aliases.
var sshKeyTypes = map[string]any{
	"dsa": "ssh-dss", "ed25519": "ssh-ed25519", "rsa": "ssh-rsa",
	"ecdsa-sk": "sk-ecdsa-sha2-nistp256@openssh.com", "ed25519-sk": "sk-ssh-ed25519@openssh.com",
}

func init() {
	for _, k := range []string{"ssh-dss", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
		"ecdsa-sha2-nistp521", "ssh-ed25519", "sk-ecdsa-sha2-nistp256@openssh.com",
		"sk-ssh-ed25519@openssh.com", "ssh-rsa-cert-v01@openssh.com", "ssh-ed25519-cert-v01@openssh.com",
		"ssh-dss-cert-v01@openssh.com", "ecdsa-sha2-nistp256-cert-v01@openssh.com",
		"ecdsa-sha2-nistp384-cert-v01@openssh.com", "ecdsa-sha2-nistp521-cert-v01@openssh.com"} {
		sshKeyTypes[k] = k
	}
}

// sshKeyOption is what the Puppet type accepts as one option.
var sshKeyOption = regexp.MustCompile(`^[-a-zA-Z0-9_]+(="[^\n]*")?$`)

// sshKeyWhole translates name and ensure, and requires user.
func sshKeyWhole(t *tr) {
	ensurePresent(t, "ssh_authorized_key")
	t.out["matchby"] = "comment"
	t.out["comment"] = t.v.Name
	if _, ok := t.params["user"]; !ok {
		t.fallback("an ssh_authorized_key without user: Puppet's provider refuses to write it")
	}
}

// sshKeyBlob copies the key, which the Puppet type refuses with white
// space in it.
func sshKeyBlob(t *tr, k string, v any) {
	s, ok := v.(string)
	if !ok || s == "" || strings.ContainsAny(s, " \t\r\n\v\f") {
		t.fallbackValue(k, v)
		return
	}
	t.out["key"] = s
}

// sshKeyTarget copies an absolute target in a directory named ".ssh".
func sshKeyTarget(t *tr, k string, v any) {
	s, ok := v.(string)
	if !ok || !path.IsAbs(s) || path.Base(path.Dir(s)) != ".ssh" {
		t.fallbackValue(k, v)
		return
	}
	t.out["file"] = s
}

// sshKeyOptions copies one option or a list of them.
func sshKeyOptions(t *tr, k string, v any) {
	var opts []any
	switch x := v.(type) {
	case string:
		opts = []any{x}
	case []any:
		for _, o := range x {
			s, ok := o.(string)
			if !ok {
				t.fallbackValue(k, v)
				return
			}
			opts = append(opts, s)
		}
	default:
		t.fallbackValue(k, v)
		return
	}
	for _, o := range opts {
		if !sshKeyOption.MatchString(o.(string)) {
			t.fallbackValue(k, v)
			return
		}
	}
	t.out["options"] = opts
}
