package puppet

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// moduleName is a name Puppet accepts for a module directory.
var moduleName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// maxSourceSize bounds a puppet: source read into a graph.
const maxSourceSize = 16 << 20

// moduleSource reads the content of the first of the sources (a URL or a
// list of URLs, as Puppet's source and concat_fragment's source take)
// that exists, as Puppet's file server finds it for a resource applied on
// this host: puppet:///modules/<module>/<file> is <file> below the files
// directory of the module, in the first directory of the module path that
// holds the module. Sources of another form (a server, another mount, a
// local path, escapes, . or .. parts) are not read: ok is false and the
// resource falls back.
func moduleSource(t *tr, k string, v any) (string, bool) {
	var urls []string
	switch x := v.(type) {
	case string:
		urls = []string{x}
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				t.fallbackValue(k, v)
				return "", false
			}
			urls = append(urls, s)
		}
	}
	if len(urls) == 0 {
		t.fallbackValue(k, v)
		return "", false
	}
	for _, u := range urls {
		if _, _, err := moduleURL(u); err != nil {
			t.fallback("%s %q: %v", k, u, err)
			return "", false
		}
	}
	mp, ok := t.modulePath("a puppet:///modules source")
	if !ok {
		return "", false
	}
	for _, u := range urls {
		mod, rel, _ := moduleURL(u)
		b, found, err := readModuleFile(mp, mod, rel)
		if err != nil {
			t.fallback("%s %q: %v", k, u, err)
			return "", false
		}
		if found {
			return string(b), true
		}
	}
	t.fallback("%s: none of %s is in the module path %s", k, strings.Join(urls, ", "), strings.Join(mp, ":"))
	return "", false
}

// isModuleSource reports whether a source is a puppet:///modules URL or
// a list of them.
func isModuleSource(v any) bool {
	l, ok := v.([]any)
	if !ok {
		l = []any{v}
	}
	for _, e := range l {
		if s, ok := e.(string); !ok || !strings.HasPrefix(s, "puppet:///modules/") {
			return false
		}
	}
	return len(l) > 0
}

// moduleURL splits puppet:///modules/<module>/<file> into the module and
// the file below its files directory.
func moduleURL(u string) (mod, rel string, err error) {
	rest, ok := strings.CutPrefix(u, "puppet:///modules/")
	if !ok {
		return "", "", fmt.Errorf("only puppet:///modules/<module>/<file> sources are read at translation")
	}
	if strings.ContainsAny(rest, "%?#\\\x00") {
		return "", "", fmt.Errorf("a source with escapes, a query or a fragment is not read at translation")
	}
	mod, rel, _ = strings.Cut(rest, "/")
	if !moduleName.MatchString(mod) || rel == "" {
		return "", "", fmt.Errorf("not a module's file")
	}
	for _, part := range strings.Split(rel, "/") {
		if part == "" || part == "." || part == ".." {
			return "", "", fmt.Errorf("a path with empty, . or .. parts is not read at translation")
		}
	}
	return mod, rel, nil
}

// readModuleFile reads <dir>/<mod>/files/<rel> of the first dir of
// modulepath that holds mod. found is false when the module or its file
// does not exist; a file that is not a regular file (a directory) is an
// error.
func readModuleFile(modulepath []string, mod, rel string) (b []byte, found bool, err error) {
	for _, dir := range modulepath {
		root := filepath.Join(dir, mod)
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			continue
		}
		p := filepath.Join(root, "files", filepath.FromSlash(rel))
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, false, nil
		case err != nil:
			return nil, false, err
		case !fi.Mode().IsRegular():
			// a directory, or a link Puppet serves as a link
			return nil, false, fmt.Errorf("%s is not a regular file", p)
		case fi.Size() > maxSourceSize:
			return nil, false, fmt.Errorf("%s is larger than %d bytes", p, maxSourceSize)
		}
		b, err := os.ReadFile(p)
		return b, err == nil, err
	}
	return nil, false, nil
}
