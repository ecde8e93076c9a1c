package manual

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/mgmtpipe/mgmt/internal/cli"
)

// writeMan writes the manual page of app.
func writeMan(w io.Writer, app *kong.Application) {
	name := app.Name
	desc := strings.TrimSpace(app.Help)
	summary, rest, _ := strings.Cut(desc, "\n")
	fmt.Fprintf(w, ".\\\" Generated from the command line of %s by go generate ./dist. DO NOT EDIT.\n", name)
	fmt.Fprintf(w, ".TH %s 1 \"\" \"mgmt\" \"mgmt manual\"\n", strings.ToUpper(name))
	fmt.Fprintf(w, ".SH NAME\n%s \\- %s\n", name, roff(strings.TrimSuffix(lowerFirst(summary), ".")))
	fmt.Fprintf(w, ".SH SYNOPSIS\n")
	if cmds := commands(app.Node); len(cmds) > 0 {
		fmt.Fprintf(w, ".B %s\n[\\fIflags\\fR] \\fIcommand\\fR [\\fIcommand flags\\fR]\n", name)
	} else {
		fmt.Fprintf(w, ".B %s\n%s\n", name, roff(strings.TrimPrefix(app.Summary(), name+" ")))
	}
	fmt.Fprintf(w, ".SH DESCRIPTION\n%s\n", paragraphs(summary+"\n"+rest))
	writeFlags(w, "OPTIONS", visible(app.Node), app.Node.Positional)
	if cmds := commands(app.Node); len(cmds) > 0 {
		fmt.Fprintf(w, ".SH COMMANDS\n")
		for _, c := range cmds {
			fmt.Fprintf(w, ".SS \"%s\"\n%s\n", roff(c.Summary()), paragraphs(c.Help))
			writeFlagList(w, visible(c), c.Positional)
		}
	}
	fmt.Fprintf(w, ".SH ENVIRONMENT\n%s\n", paragraphs("Every flag can also be given as an environment variable, named after it "+
		"with an MGMT_ prefix (shown with each flag); a flag on the command line wins."))
	fmt.Fprintf(w, ".SH EXIT STATUS\n%s\n", paragraphs("0 on success, 1 on failure, 2 on a usage error (a bad flag); the reason is written to stderr."))
	var see []string
	for _, s := range Tools() {
		if s.Name != name {
			see = append(see, fmt.Sprintf(".BR %s (1)", s.Name))
		}
	}
	fmt.Fprintf(w, ".SH SEE ALSO\n%s\n", strings.Join(see, ",\n"))
	fmt.Fprintf(w, ".PP\nThe documentation in /usr/share/doc/mgmt (the docs/ directory of the sources).\n")
}

// writeFlags writes a section of flags and arguments.
func writeFlags(w io.Writer, section string, flags []*kong.Flag, args []*kong.Positional) {
	fmt.Fprintf(w, ".SH %s\n", section)
	writeFlagList(w, flags, args)
}

func writeFlagList(w io.Writer, flags []*kong.Flag, args []*kong.Positional) {
	for _, a := range args {
		fmt.Fprintf(w, ".TP\n.I %s\n%s\n", roff(a.Summary()), roff(cli.HelpValue(a)))
	}
	for _, f := range flags {
		fmt.Fprintf(w, ".TP\n%s\n%s\n", flagTerm(f), roff(cli.HelpValue(f.Value)))
	}
}

// flagTerm is the roff term of a flag: -h, --file=PATH.
func flagTerm(f *kong.Flag) string {
	var b strings.Builder
	b.WriteString(`\fB`)
	if f.Short != 0 {
		fmt.Fprintf(&b, `\-%c\fR, \fB`, f.Short)
	}
	b.WriteString(`\-\-` + roff(f.Name) + `\fR`)
	if !f.IsBool() && !f.IsCounter() {
		b.WriteString(`=\fI` + roff(f.FormatPlaceHolder()) + `\fR`)
	}
	return b.String()
}

// paragraphs turns text into roff paragraphs: blank lines separate them,
// other line breaks are spaces.
func paragraphs(text string) string {
	var out []string
	for _, p := range strings.Split(strings.TrimSpace(text), "\n\n") {
		out = append(out, roff(strings.Join(strings.Fields(p), " ")))
	}
	return strings.Join(out, "\n.PP\n")
}

// roff escapes text for a roff text line: backslashes, hyphens (a minus
// in roff is \-), and a leading dot or quote, which would start a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
