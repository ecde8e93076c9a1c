package world

import (
	"fmt"
	"path"
	"strings"
)

// DefaultNamespace is the key prefix of the world when none is configured.
const DefaultNamespace = "/_mgmt"

// Key sub trees under the namespace.
const (
	stringsDir   = "/strings/"
	exportedDir  = "/exported/"
	schedHostDir = "/scheduler/hostname/"
	schedDir     = "/scheduler/schedule/"
	convergedDir = "/converged/"
)

// normNamespace returns ns without a trailing slash, with a leading one, or
// the default namespace when ns is empty.
func normNamespace(ns string) string {
	if ns == "" {
		return DefaultNamespace
	}
	ns = "/" + strings.Trim(ns, "/")
	if ns == "/" {
		return ""
	}
	return ns
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
func checkHost(h string) error {
	if h == "" {
		return fmt.Errorf("empty hostname")
	}
	if strings.ContainsAny(h, "/\x00") || h == "." || h == ".." {
		return fmt.Errorf("invalid hostname %q", h)
	}
	return nil
}

// exportKey returns the key of a resource exported by from to to.
func (c *Client) exportKey(to, from, kind, name string) string {
	return c.ns + exportedDir + to + "/" + from + "/" + kind + "/" + name
}

// parseExportKey splits the part of an exported-resource key after the
// exported directory into its fields. Names may contain slashes; kinds and
// hosts may not.
func parseExportKey(rest string) (to, from, kind, name string, ok bool) {
	parts := strings.SplitN(rest, "/", 4)
	if len(parts) != 4 || parts[0] == "" || parts[1] == "" || parts[2] == "" || parts[3] == "" {
		return "", "", "", "", false
	}
	return parts[0], parts[1], parts[2], parts[3], true
}

// RawKey returns the etcd key of a world key given relative to the
// namespace, as the mgmt-cluster get/put/del commands use it: "strings/x"
// becomes "/_mgmt/strings/x".
func (c *Client) RawKey(k string) string {
	return path.Clean(c.ns + "/" + strings.TrimPrefix(k, "/"))
}
