package system

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// passwdEntry is one line of /etc/passwd.
type passwdEntry struct {
	name     string
	uid, gid uint32
	comment  string
	home     string
	shell    string
	line     int
}

// groupEntry is one line of /etc/group.
type groupEntry struct {
	name    string
	gid     uint32
	members []string
}

// readColonFile reads a colon-separated file into its lines' fields,
// skipping blank lines and comments.
func readColonFile(path string, minFields int) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Split(line, ":")
		if len(fs) < minFields {
			return nil, fmt.Errorf("%s:%d:1: got %d fields, want %d", path, n, len(fs), minFields)
		}
		out = append(out, fs)
	}
	return out, sc.Err()
}

// readPasswd parses the passwd file under root.
func readPasswd(root string) (map[string]passwdEntry, error) {
	lines, err := readColonFile(joinRoot(root, "/etc/passwd"), 7)
	if err != nil {
		return nil, err
	}
	out := map[string]passwdEntry{}
	for i, fs := range lines {
		uid, err1 := strconv.ParseUint(fs[2], 10, 32)
		gid, err2 := strconv.ParseUint(fs[3], 10, 32)
		if err1 != nil || err2 != nil {
			continue // NIS-style "+" lines and the like
		}
		out[fs[0]] = passwdEntry{name: fs[0], uid: uint32(uid), gid: uint32(gid),
			comment: fs[4], home: fs[5], shell: fs[6], line: i}
	}
	return out, nil
}

// readGroup parses the group file under root.
func readGroup(root string) (map[string]groupEntry, error) {
	lines, err := readColonFile(joinRoot(root, "/etc/group"), 4)
	if err != nil {
		return nil, err
	}
	out := map[string]groupEntry{}
	for _, fs := range lines {
		gid, err := strconv.ParseUint(fs[2], 10, 32)
		if err != nil {
			continue
		}
		var members []string
		for _, m := range strings.Split(fs[3], ",") {
			if m != "" {
				members = append(members, m)
			}
		}
		out[fs[0]] = groupEntry{name: fs[0], gid: uint32(gid), members: members}
	}
	return out, nil
}

// supplementaryGroups returns the sorted names of the groups listing user
// as a member.
func supplementaryGroups(groups map[string]groupEntry, user string) []string {
	var out []string
	for _, g := range groups {
		for _, m := range g.members {
			if m == user {
				out = append(out, g.name)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// shadowFiles are the account files shadow-utils replace on each change.
func shadowFiles(root string) []string {
	var out []string
	for _, f := range []string{"passwd", "group", "shadow", "gshadow"} {
		out = append(out, joinRoot(root, "/etc/"+f))
	}
	return out
}

// rootArgs returns the --root option of the shadow tools for root.
func rootArgs(root string) []string {
	if root == "" || root == "/" {
		return nil
	}
	return []string{"--root", root}
}
