package puppet

import "strings"

// fileLineMapping translates stdlib's file_line (ruby provider) to our line
// kind when it appends or removes one whole line. The line kind finds
// whole lines only, so match and after (which edit lines a regular
// expression finds) fall back, as does any value of a parameter that
// changes what the provider does with a plain line:
//
//   - replace => false makes the provider's create test every line against
//     an absent pattern, which fails as soon as the file has a line;
//   - a line with a newline or carriage return never equals a line of the
//     file (the provider compares it with each line, its newline cut), so
//     Puppet appends it again at every run; an empty line is added as an
//     empty line, which our kind does not do.
//
// multiple, match_for_absence and append_on_no_match change nothing
// without match or after.
var fileLineMapping = &mapping{kind: "line", title: true, whole: fileLineWhole, rules: map[string]rule{
	"path":                                  toStr("file"),
	"multiple":                              only("true", "false"),
	"match_for_absence":                     only("true", "false"),
	"append_on_no_match":                    only("true", "false"),
	"replace":                               only("true"),
	"replace_all_matches_not_matching_line": only("false"),
	"encoding":                              only("UTF-8"),
	"provider":                              only("ruby"),
}}

// fileLineWhole translates ensure and line, and sends match and after to
// pippet.
func fileLineWhole(t *tr) {
	t.get("name")
	for _, k := range []string{"match", "after"} {
		if v, ok := t.get(k); ok {
			t.fallback("%s => %s edits the lines a regular expression finds, our line kind finds whole lines", k, inspect(v))
		}
	}
	switch e, ok := t.str("ensure"); {
	case !ok || e == "present":
		t.out["state"] = "exists"
	case e == "absent":
		t.out["state"] = "absent"
	default:
		t.fallbackValue("ensure", e)
	}
	l, ok := t.get("line")
	s, isStr := l.(string)
	switch {
	case !ok:
		t.fallback("a file_line without line: Puppet refuses it")
	case !isStr || s == "" || strings.ContainsAny(s, "\r\n"):
		t.fallbackValue("line", l)
	default:
		t.out["content"] = s
	}
}
