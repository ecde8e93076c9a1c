package manual

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// writeBash writes the bash completion of app: flags after "-", the
// subcommands (and each one's flags), file names for the flags that take
// a path and for arguments, nothing for other flag values.
func writeBash(w io.Writer, app *kong.Application) {
	fn := "_" + strings.ReplaceAll(app.Name, "-", "_")
	cmds := commands(app.Node)
	fmt.Fprintf(w, "# bash completion of %s. Generated from its command line by go generate ./dist. DO NOT EDIT.\n", app.Name)
	fmt.Fprintf(w, "%s() {\n", fn)
	fmt.Fprintf(w, "\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} cmd= w\n")
	if len(cmds) > 0 {
		var names []string
		for _, c := range cmds {
			names = append(names, c.Name)
		}
		fmt.Fprintf(w, "\tfor w in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do\n\t\tcase $w in %s) cmd=$w ;; esac\n\tdone\n", strings.Join(names, "|"))
	}
	all := visible(app.Node)
	for _, c := range cmds {
		all = append(all, visible(c)...)
	}
	var paths, values []string
	for _, f := range all {
		if f.IsBool() || f.IsCounter() {
			continue
		}
		if takesPath(f) {
			paths = append(paths, "--"+f.Name)
		} else {
			values = append(values, "--"+f.Name)
		}
	}
	fmt.Fprintf(w, "\tcase $prev in\n")
	if len(paths) > 0 {
		fmt.Fprintf(w, "\t%s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", strings.Join(dedup(paths), "|"))
	}
	if len(values) > 0 {
		fmt.Fprintf(w, "\t%s) COMPREPLY=(); return ;;\n", strings.Join(dedup(values), "|"))
	}
	fmt.Fprintf(w, "\tesac\n")
	fmt.Fprintf(w, "\tlocal flags\n\tcase $cmd in\n")
	fmt.Fprintf(w, "\t\"\") flags=%q ;;\n", flagWords(visible(app.Node)))
	for _, c := range cmds {
		fmt.Fprintf(w, "\t%s) flags=%q ;;\n", c.Name, flagWords(append(visible(app.Node), visible(c)...)))
	}
	fmt.Fprintf(w, "\tesac\n")
	fmt.Fprintf(w, "\tif [[ $cur == -* ]]; then\n\t\tCOMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n\t\treturn\n\tfi\n")
	if len(cmds) > 0 {
		var names []string
		for _, c := range cmds {
			names = append(names, c.Name)
		}
		fmt.Fprintf(w, "\tif [[ -z $cmd ]]; then\n\t\tCOMPREPLY=($(compgen -W %q -- \"$cur\"))\n\t\treturn\n\tfi\n", strings.Join(names, " "))
	}
	fmt.Fprintf(w, "\tCOMPREPLY=($(compgen -f -- \"$cur\"))\n}\n")
	fmt.Fprintf(w, "complete -o filenames -F %s %s\n", fn, app.Name)
}

// flagWords returns the flags as completion words: --name (and -s).
func flagWords(flags []*kong.Flag) string {
	var out []string
	for _, f := range flags {
		out = append(out, "--"+f.Name)
		if f.Short != 0 {
			out = append(out, "-"+string(f.Short))
		}
	}
	return strings.Join(out, " ")
}

func dedup(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range s {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}
