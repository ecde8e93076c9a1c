package manual

import (
	"strings"

	"github.com/alecthomas/kong"
)

// What the zsh and fish completions share: a flag's one-line description
// and what its value is.

// summary returns the first sentence of help, without its full stop, as
// the one-line description of a flag or command.
func summary(help string) string {
	help = strings.Join(strings.Fields(help), " ")
	if i := strings.Index(help, ". "); i >= 0 {
		help = help[:i]
	}
	if i := strings.Index(help, " ("); i >= 0 && !strings.Contains(help[i:], ")") {
		help = help[:i]
	}
	return strings.TrimSuffix(help, ".")
}

// A valueKind says what a flag's value is, for completing it.
type valueKind int

const (
	valueNone  valueKind = iota // a bool or counter flag: no value
	valuePath                   // a file or directory name
	valueEnum                   // one of the words of enumValues
	valueOther                  // anything else: nothing to offer
)

// kindOf returns what the value of f is.
func kindOf(f *kong.Flag) valueKind {
	switch {
	case f.IsBool() || f.IsCounter():
		return valueNone
	case takesPath(f):
		return valuePath
	case f.Enum != "":
		return valueEnum
	}
	return valueOther
}

// enumValues returns the words an enum flag takes.
func enumValues(f *kong.Flag) []string {
	var out []string
	for _, e := range strings.Split(f.Enum, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}

// argTakesPath reports whether positional argument a names a file (a
// program, an input stream), not a word such as a kind or a key.
func argTakesPath(a *kong.Positional) bool {
	switch a.Name {
	case "path", "input":
		return true
	}
	return false
}
