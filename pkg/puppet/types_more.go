package puppet

import (
	"strings"
)

// packageMapping translates Puppet's package type (with the apt
// provider, Debian's default) to our pkg kind.
var packageMapping = &mapping{kind: "pkg", whole: func(t *tr) {
	t.get("name")
	e, ok := t.str("ensure")
	switch {
	case !ok || e == "installed" || e == "present":
		t.out["state"] = "installed"
	case e == "absent":
		t.out["state"] = "uninstalled"
	case e == "latest":
		t.out["state"] = "newest"
	case e == "purged" || e == "held":
		t.fallbackValue("ensure", e)
	default:
		t.out["state"] = e // an exact version
	}
}, rules: map[string]rule{
	"provider":             only("apt"),
	"allow_virtual":        only("true"),
	"configfiles":          only("keep"),
	"reinstall_on_refresh": only("false"),
}}

// userMapping translates Puppet's user type (useradd provider) to our user
// kind.
var userMapping = &mapping{kind: "user", whole: func(t *tr) {
	ensurePresent(t, "user")
	if g, ok := t.get("groups"); ok {
		var out []any
		for _, s := range stringList(g) {
			for _, x := range strings.Split(s, ",") {
				if x = strings.TrimSpace(x); x != "" {
					out = append(out, x)
				}
			}
		}
		m, _ := t.str("membership")
		switch {
		case m == "inclusive" && out == nil:
			t.out["groups"] = []any{}
		case m == "inclusive":
			t.out["groups"] = out
		case out != nil:
			t.fallback("groups with membership minimum: Puppet keeps other groups, our kind sets the exact list")
		}
		// membership minimum with no groups: Puppet adds none and keeps
		// the others, which is leaving them alone
	}
}, rules: map[string]rule{
	"uid": toInt("uid"),
	"gid": func(t *tr, k string, v any) {
		if _, isList := v.([]any); isList {
			t.fallbackValue(k, v)
		} else if isDigits(scalar(v)) {
			toInt("gid")(t, k, v)
		} else {
			t.out["group"] = scalar(v)
		}
	},
	"shell":                toStr("shell"),
	"home":                 toStr("homedir"),
	"comment":              toStr("comment"),
	"allowdupe":            toBool("allowduplicateuid"),
	"provider":             only("useradd"),
	"membership":           none, // read with groups
	"role_membership":      only("minimum"),
	"auth_membership":      only("minimum"),
	"profile_membership":   only("minimum"),
	"key_membership":       only("minimum"),
	"attribute_membership": only("minimum"),
	"managehome":           only("false"),
	"purge_ssh_keys":       only("false"),
	"system":               only("false"),
}}

// userProperties are the properties of Puppet's user type other than
// ensure: setting one makes ensure default to present.
var userProperties = []string{"home", "uid", "gid", "comment", "shell", "password", "password_min_age",
	"password_max_age", "password_warn_days", "groups", "expiry", "roles", "auths", "profiles", "keys",
	"project", "attributes", "loginclass"}

// setsUserProperty reports whether a user resource sets a property.
func setsUserProperty(params map[string]any) bool {
	for _, k := range userProperties {
		if _, ok := params[k]; ok {
			return true
		}
	}
	return false
}

// groupMapping translates Puppet's group type (groupadd provider) to our
// group kind.
var groupMapping = &mapping{kind: "group", whole: func(t *tr) { ensurePresent(t, "group") }, rules: map[string]rule{
	"gid":                  toInt("gid"),
	"allowdupe":            only("false"),
	"system":               only("false"),
	"provider":             only("groupadd"),
	"auth_membership":      only("true", "false"), // only used with members, which falls back
	"attribute_membership": only("minimum"),
}}

// notifyMapping translates Puppet's notify type to our msg kind.
var notifyMapping = &mapping{kind: "msg", title: true, whole: func(t *tr) {
	t.get("name")
	t.out["body"] = t.v.Res.Title
	if m, ok := t.get("message"); ok {
		switch m.(type) {
		case string, int64, float64, bool:
			t.out["body"] = scalar(m)
		default:
			t.fallbackValue("message", m)
		}
	}
	prio := "notice"
	if l, ok := t.str("loglevel"); ok && l != "verbose" {
		prio = l
	}
	t.out["priority"] = prio
}, rules: map[string]rule{
	"withpath": none,
}}

// mountMapping translates Puppet's mount type (mount_core) to our mount
// kind, which keeps the fstab entry and the live mount.
var mountMapping = &mapping{kind: "mount", rules: map[string]rule{
	"name":   none,
	"device": toStr("device"),
	"ensure": enum("state", map[string]any{"mounted": "exists", "absent": "absent"}),
	"fstype": toStr("type"),
	"dump":   toInt("freq"),
	"pass":   toInt("passno"),
	"options": func(t *tr, k string, v any) {
		o, ok := v.(string)
		if !ok {
			t.fallbackValue(k, v)
			return
		}
		m := map[string]any{}
		for _, kv := range strings.Split(o, ",") {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		t.out["options"] = m
	},
	"provider": only("parsed"),
	"target":   only("/etc/fstab"),
	"remounts": only("true"),
}}

// ensurePresent translates the ensure of a user or group: present or
// absent. Without ensure, Puppet's group is present, and so is a user
// whose resource sets one of its properties; a user without any is left
// alone (see managesNothing), which our kind cannot say beside other
// parameters.
func ensurePresent(t *tr, what string) {
	t.get("name")
	e, ok := t.str("ensure")
	switch {
	case !ok && (what == "group" || setsUserProperty(t.params)):
		t.out["state"] = "exists"
	case !ok:
		t.fallback("a %s without ensure nor a property: Puppet leaves it alone", what)
	case e == "present":
		t.out["state"] = "exists"
	case e == "absent":
		t.out["state"] = "absent"
	default:
		t.fallbackValue("ensure", e)
	}
}
