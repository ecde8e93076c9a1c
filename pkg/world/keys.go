package world

import (
	"fmt"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// DefaultNamespace is the key prefix of the world when none is configured.
const DefaultNamespace = "/_mgmt"

// Key sub trees under the namespace.
// Each key a host owns starts with the host's name right after its sub
// tree, so that one etcd key range grants a host its own keys and no other
// host's (see hostPermissions).
const (
	stringsDir   = "/strings/"            // shared plain strings
	mappedDir    = "/mapped/"             // <host>/<namespace>: per-host maps
	exportsDir   = "/exports/"            // <from>/<to>/<kind>/<name>
	schedHostDir = "/scheduler/hostname/" // <host>/<ns>: volunteers
	schedDir     = "/scheduler/schedule/" // <ns>: stored schedules, shared
	convergedDir = "/converged/"          // <host>
)

// normNamespace returns ns with a leading slash and without a trailing
// one, or the default namespace when ns is empty. A namespace is a key
// prefix of its own: it must be a valid key path below the root and must
// neither hold nor sit inside the default namespace unless it is the
// default namespace, so that no other namespace reaches the keys hosts
// act on.
func normNamespace(ns string) (string, error) {
	if ns == "" {
		return DefaultNamespace, nil
	}
	rel := strings.TrimSuffix(strings.TrimPrefix(ns, "/"), "/")
	if rel == "" {
		return "", fmt.Errorf("namespace %q: the root holds every namespace; name one below it", ns)
	}
	if err := checkKey(rel); err != nil {
		return "", fmt.Errorf("namespace %q: %v", ns, err)
	}
	ns = "/" + rel
	if strings.HasPrefix(ns, DefaultNamespace+"/") {
		return "", fmt.Errorf("namespace %q lies inside %s, the hosts' world", ns, DefaultNamespace)
	}
	return ns, nil
}

// checkKey reports whether k can be used as a world key or namespace name:
// non-empty, no NUL, no "." or ".." segment, no leading or trailing slash.
func checkKey(k string) error {
	if k == "" {
		return fmt.Errorf("empty key")
	}
	if strings.ContainsRune(k, 0) {
		return fmt.Errorf("key %q contains a NUL byte", k)
	}
	if strings.HasPrefix(k, "/") || strings.HasSuffix(k, "/") {
		return fmt.Errorf("key %q must not start or end with a slash", k)
	}
	for _, seg := range strings.Split(k, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("key %q has an empty, \".\" or \"..\" segment", k)
		}
	}
	return nil
}

// checkHost reports whether h can be a hostname in the world.
func checkHost(h string) error { return worldapi.CheckHost(h) }

// exportKey returns the key of a resource exported by from to to.
func (c *Client) exportKey(from, to, kind, name string) string {
	return c.ns + exportsDir + from + "/" + to + "/" + kind + "/" + name
}

// parseExportKey splits the part of an exported-resource key after the
// exports directory into its fields. Names may contain slashes; kinds and
// hosts may not.
func parseExportKey(rest string) (from, to, kind, name string, ok bool) {
	parts := strings.SplitN(rest, "/", 4)
	if len(parts) != 4 || parts[0] == "" || parts[1] == "" || parts[2] == "" || parts[3] == "" {
		return "", "", "", "", false
	}
	return parts[0], parts[1], parts[2], parts[3], true
}

// RawKey returns the etcd key of the world key k of namespace ns, with k
// given relative to the namespace as the mgmt-cluster get/put/del commands
// take it: "strings/x" becomes "/_mgmt/strings/x". Keys that could leave
// the namespace (a ".." or "." segment, an empty segment, a leading slash)
// are refused.
func RawKey(ns, k string) (string, error) {
	ns, err := normNamespace(ns)
	if err != nil {
		return "", err
	}
	if err := checkKey(k); err != nil {
		return "", err
	}
	return ns + "/" + k, nil
}

// RawPrefix returns the etcd prefix of every key below the world key k of
// namespace ns, ending in a slash; k may end in a slash, and "" stands for
// the whole namespace.
func RawPrefix(ns, k string) (string, error) {
	if k = strings.TrimSuffix(k, "/"); k != "" {
		raw, err := RawKey(ns, k)
		return raw + "/", err
	}
	ns, err := normNamespace(ns)
	return ns + "/", err
}

// RelKey returns the world key of the etcd key raw, relative to the
// namespace: the inverse of RawKey.
func (c *Client) RelKey(raw string) string {
	return strings.TrimPrefix(raw, c.ns+"/")
}
