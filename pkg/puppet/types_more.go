package puppet

import (
	"fmt"
	"strconv"
	"strings"
)

func trExec(t *tr) {
	t.common()
	t.kind = "exec"
	t.ignore("command")
	t.out["cmd"] = t.v.Name
	t.out["shell"] = "/bin/sh"
	t.out["timeout"] = int64(300)
	// Puppet runs an exec at every run: a tick per runinterval reruns it
	t.out["watchcmd"] = fmt.Sprintf("while sleep %d; do echo puppet run interval passed; done", t.opts.runInterval())
	t.out["watchshell"] = "/bin/sh"
	if v, ok := t.get("timeout"); ok {
		switch x := v.(type) {
		case int64:
			t.out["timeout"] = x
		case float64:
			t.out["timeout"] = int64(x)
		default:
			n, err := strconv.ParseFloat(scalar(v), 64)
			if err != nil {
				t.fail("cannot translate attribute 'timeout' with value " + inspect(v))
			}
			t.out["timeout"] = int64(n)
		}
	}
	t.carry("user", "user")
	t.carry("group", "group")
	t.carry("cwd", "cwd")
	var conds []string
	for _, c := range stringList(t.params["onlyif"]) {
		conds = append(conds, "{ "+c+"; }")
	}
	for _, c := range stringList(t.params["unless"]) {
		conds = append(conds, "! { "+c+"; }")
	}
	t.carry("creates", "creates")
	t.ignore("onlyif", "unless")
	if len(conds) > 0 {
		t.out["ifcmd"] = strings.Join(conds, " && ")
		t.out["ifshell"] = "/bin/sh"
	}
	env := map[string]any{}
	if p, ok := t.get("path"); ok {
		env["PATH"] = strings.Join(stringList(p), ":")
	}
	for _, kv := range stringList(t.params["environment"]) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			t.fail("cannot translate environment entry " + inspect(kv))
		}
		env[k] = v
	}
	t.ignore("environment")
	if len(env) > 0 {
		t.out["env"] = env
	}
	if v, ok := t.get("refreshonly"); ok && truthy(v) {
		t.out["refreshonly"] = true
	}
	t.ignore("provider", "logoutput")
	if v, ok := t.get("returns"); ok {
		if l := stringList(v); !(len(l) == 1 && l[0] == "0") && scalar(v) != "0" {
			t.fail("cannot translate attribute 'returns' with value " + inspect(v))
		}
	}
	if v, ok := t.get("tries"); ok {
		n, _ := strconv.Atoi(scalar(v))
		if n > 1 {
			t.meta.Retry = int16(n - 1)
		}
	}
	if v, ok := t.get("try_sleep"); ok {
		f, _ := strconv.ParseFloat(scalar(v), 64)
		t.meta.Delay = uint64(f * 1000)
	}
}

func trPackage(t *tr) {
	t.common()
	t.kind = "pkg"
	t.ignore("name", "provider")
	t.out["state"] = "installed"
	if e, ok := t.str("ensure"); ok {
		switch e {
		case "installed", "present":
		case "purged", "absent":
			t.out["state"] = "uninstalled"
		case "latest":
			t.out["state"] = "newest"
		default:
			t.out["state"] = e // an exact version
		}
	}
	if v, ok := t.get("allow_virtual"); ok && !truthy(v) {
		t.warn("allow_virtual => false is ignored")
	}
	if v, ok := t.str("configfiles"); ok && v != "keep" {
		t.warn("configfiles => " + v + " is ignored")
	}
	if v, ok := t.get("reinstall_on_refresh"); ok && truthy(v) {
		t.warn("reinstall_on_refresh is ignored")
	}
}

func trService(t *tr) {
	t.common()
	t.kind = "svc"
	t.ignore("name", "hasstatus", "hasrestart")
	if e, ok := t.get("ensure"); ok {
		if s := scalar(e); s == "running" || s == "true" {
			t.out["state"] = "running"
		} else {
			t.out["state"] = "stopped"
		}
	}
	if e, ok := t.get("enable"); ok {
		switch scalar(e) {
		case "true":
			t.out["startup"] = "enabled"
		case "false":
			t.out["startup"] = "disabled"
		default:
			t.fail("cannot translate attribute 'enable' with value " + inspect(e))
		}
	}
	// Debian runs systemd: its "debian" provider manages systemd units
	t.failUnless("provider", "systemd", "debian")
	if p, ok := t.str("pattern"); ok && p != t.v.Name {
		t.fail("cannot translate attribute 'pattern' with value " + inspect(p))
	}
}

func trUser(t *tr) {
	t.common()
	t.kind = "user"
	t.ignore("name")
	t.carry("uid", "uid")
	if g, ok := t.get("gid"); ok {
		if i, isInt := g.(int64); isInt {
			t.out["gid"] = i
		} else if n, err := strconv.ParseInt(scalar(g), 10, 64); err == nil {
			t.out["gid"] = n
		} else {
			t.out["group"] = scalar(g)
		}
	}
	if g, ok := t.get("groups"); ok {
		var out []any
		for _, s := range stringList(g) {
			for _, x := range strings.Split(s, ",") {
				if x = strings.TrimSpace(x); x != "" {
					out = append(out, x)
				}
			}
		}
		t.out["groups"] = out
	}
	ensureExists(t)
	t.carry("shell", "shell")
	t.carry("home", "homedir")
	t.carry("allowdupe", "allowduplicateuid")
	if _, ok := t.get("comment"); ok {
		t.warn("comment is dropped")
	}
	if p, ok := t.str("provider"); ok && p != "useradd" {
		t.warn("provider (" + p + ") is ignored")
	}
	for _, k := range []string{"membership", "role_membership", "auth_membership", "profile_membership", "key_membership", "attribute_membership"} {
		t.failUnless(k, "minimum")
	}
	if v, ok := t.get("managehome"); ok && truthy(v) {
		t.fail("cannot translate managehome => true")
	}
	if v, ok := t.get("purge_ssh_keys"); ok && truthy(v) {
		t.fail("cannot translate purge_ssh_keys")
	}
}

func ensureExists(t *tr) {
	if e, ok := t.str("ensure"); ok {
		switch e {
		case "present":
			t.out["state"] = "exists"
		case "absent":
			t.out["state"] = "absent"
		default:
			t.fail("cannot translate attribute 'ensure' with value " + inspect(e))
		}
	}
}

func trGroup(t *tr) {
	t.common()
	t.kind = "group"
	t.ignore("name")
	t.carry("gid", "gid")
	ensureExists(t)
	if v, ok := t.get("allowdupe"); ok && truthy(v) {
		t.fail("cannot translate allowdupe => true")
	}
	if v, ok := t.get("system"); ok && truthy(v) {
		t.fail("cannot translate system => true")
	}
	if p, ok := t.str("provider"); ok && p != "groupadd" {
		t.warn("provider (" + p + ") is ignored")
	}
	if v, ok := t.get("auth_membership"); ok && truthy(v) {
		t.fail("cannot translate auth_membership => true")
	}
	t.failUnless("attribute_membership", "minimum")
}

func trNotify(t *tr) {
	t.kind = "msg"
	t.ignore("name", "withpath")
	if v, ok := t.get("noop"); ok {
		t.meta.Noop = truthy(v)
	}
	t.out["body"] = t.v.Res.Title
	if m, ok := t.get("message"); ok {
		t.out["body"] = scalar(m)
	}
	prio := "Notice"
	if l, ok := t.str("loglevel"); ok && l != "verbose" {
		prio = rubyCapitalize(l)
	}
	t.out["priority"] = prio
}

func trMount(t *tr) {
	t.common()
	t.kind = "mount"
	t.ignore("name")
	t.carry("device", "device")
	if e, ok := t.str("ensure"); ok {
		switch e {
		case "present", "defined", "mounted":
			t.out["state"] = "exists"
		case "absent", "unmounted":
			t.out["state"] = "absent"
		default:
			t.fail("cannot translate attribute 'ensure' with value " + inspect(e))
		}
	}
	t.carry("fstype", "type")
	for k, to := range map[string]string{"dump": "freq", "pass": "passno"} {
		if v, ok := t.get(k); ok {
			n, err := strconv.ParseInt(scalar(v), 10, 64)
			if err != nil {
				t.fail(fmt.Sprintf("cannot translate attribute '%s' with value %s", k, inspect(v)))
			}
			t.out[to] = n
		}
	}
	if o, ok := t.str("options"); ok {
		m := map[string]any{}
		for _, kv := range strings.Split(o, ",") {
			k, v, _ := strings.Cut(kv, "=")
			m[k] = v
		}
		t.out["options"] = m
	}
	t.failUnless("provider", "parsed")
	t.failUnless("target", "/etc/fstab")
	if v, ok := t.get("remounts"); ok && !truthy(v) {
		t.warn("remounts => false is ignored")
	}
}

func trAugeas(t *tr) {
	t.common()
	t.kind = "augeas"
	t.ignore("name", "provider", "returns", "withpath")
	t.carry("lens", "lens")
	incl, ok := t.str("incl")
	if !ok {
		t.fail("needs incl: the file to edit")
	}
	t.out["file"] = incl
	var sets []any
	all := stringList(t.params["changes"])
	t.ignore("changes")
	for _, c := range all {
		f := strings.SplitN(strings.TrimSpace(c), " ", 3)
		if len(f) == 3 && f[0] == "set" {
			sets = append(sets, map[string]any{"path": f[1], "value": f[2]})
			continue
		}
		t.fail("cannot translate change " + inspect(c) + ": only set is supported")
	}
	if len(all) > 0 && len(sets) == 0 {
		t.warn("has no changes left")
	}
	if sets != nil {
		t.out["sets"] = sets
	}
	if c, ok := t.str("context"); ok && c != "/files"+incl {
		t.fail("cannot translate attribute 'context' with value " + inspect(c))
	}
	if v, ok := t.get("force"); ok && truthy(v) {
		t.fail("cannot translate force => true")
	}
	if _, ok := t.get("load_path"); ok {
		t.warn("load_path is ignored")
	}
	if _, ok := t.get("onlyif"); ok {
		t.fail("cannot translate attribute 'onlyif'")
	}
	t.failUnless("root", "/")
	if v, ok := t.get("show_diff"); ok && !truthy(v) {
		t.warn("show_diff => false is ignored")
	}
	if v, ok := t.get("type_check"); ok && truthy(v) {
		t.warn("type_check is ignored")
	}
}

func trAnchor(t *tr) {
	t.kind = "noop"
	t.ignore("name")
}
