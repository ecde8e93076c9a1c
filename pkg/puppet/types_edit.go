package puppet

import "strings"

// fileLineMapping translates stdlib's file_line (ruby provider) to our line
// kind, which does what the provider does with a whole line, match, after,
// multiple, replace, match_for_absence, append_on_no_match and
// replace_all_matches_not_matching_line (see fileLineWhole). What falls
// back to pippet:
//
//   - a pattern lineRegexp cannot translate exactly;
//   - replace => false without match, which makes the provider's create
//     test every line against an absent pattern, which fails as soon as
//     the file has a line;
//   - a line with a newline or carriage return never equals a line of the
//     file (the provider compares it with each line, its newline cut), so
//     Puppet appends it again at every run; an empty line is added as an
//     empty line, which our kind does not do;
//   - replace_all_matches_not_matching_line with ensure => absent and
//     match_for_absence, where the provider removes the lines matching
//     the pattern when only the line itself is there;
//   - what the type refuses (no line, multiple => false or replace =>
//     false with replace_all_matches_not_matching_line), so that Puppet
//     reports it.
var fileLineMapping = &mapping{kind: "line", title: true, whole: fileLineWhole, rules: map[string]rule{
	"path":     toStr("file"),
	"encoding": only("UTF-8"),
	"provider": only("ruby"),
}}

// fileLineBools are file_line's boolean parameters and their defaults
// (multiple has none: only an explicit false is refused with
// replace_all_matches_not_matching_line).
var fileLineBools = map[string]bool{
	"multiple": false, "match_for_absence": false, "replace": true,
	"append_on_no_match": true, "replace_all_matches_not_matching_line": false,
}

// fileLineParams are the parameters of one file_line as the provider
// reads them.
type fileLineParams struct {
	present      bool
	match, after string // "" when not given
	bools, given map[string]bool
	line         any
	hasLine      bool
}

// fileLineWhole translates ensure, line and the parameters that edit by
// pattern, keeping only those that change what the provider does.
func fileLineWhole(t *tr) {
	t.get("name")
	p, ok := readFileLine(t)
	if !ok {
		return
	}
	rammnml := p.bools["replace_all_matches_not_matching_line"]
	switch {
	case rammnml && p.given["multiple"] && !p.bools["multiple"]:
		t.fallback("file_line refuses multiple => false with replace_all_matches_not_matching_line")
		return
	case rammnml && !p.bools["replace"]:
		t.fallback("file_line refuses replace => false with replace_all_matches_not_matching_line")
		return
	}
	if !p.present {
		fileLineAbsent(t, p)
		return
	}
	t.out["state"] = "exists"
	fileLineContent(t, p)
	if p.match != "" {
		fileLinePattern(t, "match", p.match)
		fileLinePattern(t, "after", p.after)
		for k, v := range p.bools {
			if k != "match_for_absence" && v != fileLineBools[k] {
				t.out[k] = v
			}
		}
		return
	}
	if !p.bools["replace"] {
		t.fallback("replace => false without match: the provider tests each line against no pattern, which fails on a file with lines")
		return
	}
	if p.after != "" {
		fileLinePattern(t, "after", p.after)
		if p.bools["multiple"] {
			t.out["multiple"] = true
		}
	}
}

// readFileLine consumes the parameters file_line's provider reads; false
// when one has a value it refuses (the resource then falls back).
func readFileLine(t *tr) (*fileLineParams, bool) {
	p := &fileLineParams{bools: map[string]bool{}, given: map[string]bool{}}
	switch e, ok := t.str("ensure"); {
	case !ok || e == "present":
		p.present = true
	case e == "absent":
	default:
		t.fallbackValue("ensure", e)
		return nil, false
	}
	for _, k := range []string{"match", "after"} {
		v, ok := t.get(k)
		s, isStr := v.(string)
		if ok && (!isStr || s == "") {
			t.fallbackValue(k, v)
			return nil, false
		}
		if k == "match" {
			p.match = s
		} else {
			p.after = s
		}
	}
	for k, def := range fileLineBools {
		p.bools[k] = def
		v, ok := t.get(k)
		if !ok {
			continue
		}
		b, isBool := boolValue(v)
		if !isBool {
			t.fallbackValue(k, v)
			return nil, false
		}
		p.bools[k], p.given[k] = b, true
	}
	p.line, p.hasLine = t.get("line")
	return p, true
}

// fileLineAbsent translates ensure => absent: removing what match finds
// (with match_for_absence) or the lines equal to line. after, replace and
// append_on_no_match change nothing then.
func fileLineAbsent(t *tr, p *fileLineParams) {
	t.out["state"] = "absent"
	if p.match == "" || !p.bools["match_for_absence"] {
		fileLineContent(t, p)
		if p.match != "" {
			// The provider counts the lines match finds, but removes
			// only those equal to line.
			if _, err := lineRegexp(p.match); err != nil {
				t.fallback("match => %s: %v", inspect(p.match), err)
			}
		}
		return
	}
	if p.bools["replace_all_matches_not_matching_line"] {
		t.fallback("replace_all_matches_not_matching_line with ensure => absent and match_for_absence: the provider then removes the lines matching the pattern only when the line itself is there")
		return
	}
	fileLinePattern(t, "match", p.match)
	t.out["match_for_absence"] = true
	if p.bools["multiple"] {
		t.out["multiple"] = true
	}
}

// fileLineContent translates line, which must be one non-empty line.
func fileLineContent(t *tr, p *fileLineParams) {
	s, isStr := p.line.(string)
	switch {
	case !p.hasLine:
		t.fallback("a file_line without line: Puppet refuses it")
	case !isStr || s == "" || strings.ContainsAny(s, "\r\n"):
		t.fallbackValue("line", p.line)
	default:
		t.out["content"] = s
	}
}

// fileLinePattern translates the Ruby pattern of parameter k, if any.
func fileLinePattern(t *tr, k, src string) {
	if src == "" {
		return
	}
	re, err := lineRegexp(src)
	if err != nil {
		t.fallback("%s => %s: %v", k, inspect(src), err)
		return
	}
	t.out[k] = re
}
