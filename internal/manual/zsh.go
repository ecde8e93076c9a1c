package manual

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// writeZsh writes the zsh completion function of app (the file _TOOL of
// a directory in $fpath): every flag with its description, the words of
// an enum flag, file names for the flags and arguments that take a path,
// and for a tool with subcommands the commands, then each one's flags
// (the tool's own flags stay valid after the command, as kong reads
// them).
func writeZsh(w io.Writer, app *kong.Application) {
	fn := "_" + strings.ReplaceAll(app.Name, "-", "_")
	fmt.Fprintf(w, "#compdef %s\n", app.Name)
	fmt.Fprintf(w, "# zsh completion of %s. Generated from its command line by go generate ./dist. DO NOT EDIT.\n\n", app.Name)
	fmt.Fprintf(w, "%s() {\n", fn)
	cmds := commands(app.Node)
	if len(cmds) == 0 {
		fmt.Fprintf(w, "\t_arguments -s -S \\\n")
		writeZshSpecs(w, visible(app.Node), app.Node.Positional, "\t\t")
		fmt.Fprintf(w, "}\n\n%s \"$@\"\n", fn)
		return
	}
	fmt.Fprintf(w, "\tlocal curcontext=$curcontext state line ret=1\n\ttypeset -A opt_args\n")
	fmt.Fprintf(w, "\t_arguments -C -s -S \\\n")
	for _, f := range visible(app.Node) {
		fmt.Fprintf(w, "\t\t%s \\\n", zshFlag(f))
	}
	fmt.Fprintf(w, "\t\t'1:command:->command' \\\n\t\t'*::argument:->argument' && ret=0\n")
	fmt.Fprintf(w, "\tcase $state in\n\tcommand)\n\t\tlocal -a commands=(\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "\t\t\t%s\n", zshQuote(c.Name+":"+summary(c.Help)))
	}
	fmt.Fprintf(w, "\t\t)\n\t\t_describe -t commands command commands && ret=0\n\t\t;;\n")
	fmt.Fprintf(w, "\targument)\n\t\tcase $line[1] in\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "\t\t%s)\n\t\t\t_arguments -s -S \\\n", c.Name)
		writeZshSpecs(w, append(visible(app.Node), visible(c)...), c.Positional, "\t\t\t\t")
		fmt.Fprintf(w, "\t\t\t;;\n")
	}
	fmt.Fprintf(w, "\t\tesac\n\t\t;;\n\tesac\n\treturn ret\n}\n\n%s \"$@\"\n", fn)
}

// writeZshSpecs writes the _arguments specifications of flags and args,
// one a line, ending the command.
func writeZshSpecs(w io.Writer, flags []*kong.Flag, args []*kong.Positional, indent string) {
	var specs []string
	for _, f := range flags {
		specs = append(specs, zshFlag(f))
	}
	for i, a := range args {
		action := "' '"
		if argTakesPath(a) {
			action = "_files"
		}
		pos := fmt.Sprint(i + 1)
		if a.IsSlice() {
			pos = "*"
		}
		specs = append(specs, zshQuote(pos+":"+zshEscape(strings.ToLower(a.Name))+":")+action)
	}
	if len(specs) == 0 {
		specs = append(specs, "'*: :'")
	}
	for i, s := range specs {
		end := " \\"
		if i == len(specs)-1 {
			end = ""
		}
		fmt.Fprintf(w, "%s%s%s\n", indent, s, end)
	}
}

// zshFlag returns the _arguments specification of f: its names, its
// description, and how its value is completed.
func zshFlag(f *kong.Flag) string {
	long := "--" + f.Name
	desc := "[" + zshEscape(summary(f.Help)) + "]"
	repeat := ""
	if f.IsSlice() || f.IsMap() || f.IsCounter() {
		repeat = "*"
	}
	value := ""
	switch kindOf(f) {
	case valuePath:
		value = ":" + zshEscape(placeholder(f)) + ":_files"
	case valueEnum:
		value = ":" + zshEscape(placeholder(f)) + ":(" + strings.Join(enumValues(f), " ") + ")"
	case valueOther:
		value = ":" + zshEscape(placeholder(f)) + ": "
	}
	eq := ""
	if value != "" {
		eq = "="
	}
	if f.Short == 0 {
		return zshQuote(repeat + long + eq + desc + value)
	}
	short := "-" + string(f.Short)
	excl := ""
	if repeat == "" {
		excl = "(" + short + " " + long + ")"
	}
	return zshQuote(excl+repeat) + "{" + short + "," + long + eq + "}" + zshQuote(desc+value)
}

// placeholder names a flag's value in a completion message.
func placeholder(f *kong.Flag) string {
	if f.PlaceHolder != "" {
		return strings.ToLower(f.PlaceHolder)
	}
	return strings.ReplaceAll(f.Name, "-", " ")
}

// zshEscape escapes the characters that end a part of an _arguments
// specification: brackets and colons.
func zshEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`, `:`, `\:`).Replace(s)
}

// zshQuote quotes s as one single-quoted shell word.
func zshQuote(s string) string {
	if s == "" {
		return ""
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
