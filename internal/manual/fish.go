package manual

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// writeFish writes the fish completion of app (TOOL.fish in a directory
// of $fish_complete_path): every flag with its description, the words
// of an enum flag, file names for the flags and arguments that take a
// path and nothing for other values, and for a tool with subcommands
// the commands, then each one's flags after it.
func writeFish(w io.Writer, app *kong.Application) {
	name := app.Name
	fmt.Fprintf(w, "# fish completion of %s. Generated from its command line by go generate ./dist. DO NOT EDIT.\n", name)
	cmds := commands(app.Node)
	files := false
	for _, a := range app.Node.Positional {
		files = files || argTakesPath(a)
	}
	if !files {
		fmt.Fprintf(w, "complete -c %s -f\n", name)
	}
	for _, f := range visible(app.Node) {
		fmt.Fprintf(w, "complete -c %s%s\n", name, fishFlag(f))
	}
	if len(cmds) == 0 {
		return
	}
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
	}
	cond := fmt.Sprintf(" -n %s", fishQuote("not __fish_seen_subcommand_from "+strings.Join(names, " ")))
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c %s%s -a %s -d %s\n", name, cond, c.Name, fishQuote(summary(c.Help)))
	}
	for _, c := range cmds {
		in := fmt.Sprintf(" -n %s", fishQuote("__fish_seen_subcommand_from "+c.Name))
		for _, f := range visible(c) {
			fmt.Fprintf(w, "complete -c %s%s%s\n", name, in, fishFlag(f))
		}
	}
}

// fishFlag returns the options of the complete command of f, after the
// command's name.
func fishFlag(f *kong.Flag) string {
	var b strings.Builder
	if f.Short != 0 {
		fmt.Fprintf(&b, " -s %c", f.Short)
	}
	fmt.Fprintf(&b, " -l %s", f.Name)
	switch kindOf(f) {
	case valuePath:
		b.WriteString(" -r -F")
	case valueEnum:
		fmt.Fprintf(&b, " -x -a %s", fishQuote(strings.Join(enumValues(f), " ")))
	case valueOther:
		b.WriteString(" -x")
	}
	fmt.Fprintf(&b, " -d %s", fishQuote(summary(f.Help)))
	return b.String()
}

// fishQuote quotes s as one single-quoted fish word.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
