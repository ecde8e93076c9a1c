package resources

import (
	"path/filepath"
	"strings"
	"testing"
)

// pline is a line resource with the defaults a graph document gets, then
// the changes set makes.
func pline(content, state string, set func(*LineRes)) *LineRes {
	l := (&LineRes{}).Default().(*LineRes)
	l.Content, l.State = content, state
	if set != nil {
		set(l)
	}
	return l
}

func TestLinePatternEdits(t *testing.T) {
	match := func(m string) func(*LineRes) { return func(l *LineRes) { l.Match = m } }
	for _, tc := range []struct {
		name, start string
		l           *LineRes
		want        string // "" with err set: the edit fails
		err         string
	}{
		{"match replaces", "a=1\nport=80\nb=2\n", pline("port=81", "exists", match("^port=")), "a=1\nport=81\nb=2\n", ""},
		{"match adds the final newline", "port=80\nb=2", pline("port=81", "exists", match("^port=")), "port=81\nb=2\n", ""},
		{"match appends when nothing matches", "a=1", pline("port=81", "exists", match("^port=")), "a=1\nport=81\n", ""},
		{"match leaves a present line", "port=81\nport=80\n", pline("port=81", "exists", match("^port=")), "port=81\nport=80\n", ""},
		{"match leaves a present CR LF line", "port=81\r\nport=80\r\n", pline("port=81", "exists", match("^port=")), "port=81\r\nport=80\r\n", ""},
		{"match replaces a CR LF line", "a\r\nport=80\r\n", pline("port=81", "exists", match("^port=")), "a\r\nport=81\n", ""},
		{"match twice without multiple", "port=1\nport=2\n", pline("port=3", "exists", match("^port=")), "", "2 lines of"},
		{"match twice with multiple", "port=1\nx\nport=2\n", pline("port=3", "exists", func(l *LineRes) { l.Match, l.Multiple = "^port=", true }),
			"port=3\nx\nport=3\n", ""},
		{"replace false leaves a match", "port=1\n", pline("port=3", "exists", func(l *LineRes) { l.Match, l.Replace = "^port=", false }), "port=1\n", ""},
		{"replace false adds without a match", "a\n", pline("port=3", "exists", func(l *LineRes) { l.Match, l.Replace = "^port=", false }), "a\nport=3\n", ""},
		{"no append on no match", "a\n", pline("port=3", "exists", func(l *LineRes) { l.Match, l.AppendOnNoMatch = "^port=", false }), "a\n", ""},
		{"all matches not matching the line", "port=3\nport=1\n", pline("port=3", "exists", func(l *LineRes) {
			l.Match, l.Multiple, l.ReplaceAllMatchesNotMatchingLine = "^port=", true, true
		}), "port=3\nport=3\n", ""},
		{"match with after inserts after the first", "[a]\nx\n[a]\n", pline("port=3", "exists", func(l *LineRes) { l.Match, l.After = "^port=", `^\[a\]$` }),
			"[a]\nport=3\nx\n[a]\n", ""},
		{"after", "[main]\nx=1\n", pline("port=3", "exists", func(l *LineRes) { l.After = `^\[main\]` }), "[main]\nport=3\nx=1\n", ""},
		{"after last line without newline", "x\n[main]", pline("port=3", "exists", func(l *LineRes) { l.After = `^\[main\]` }), "x\n[main]\nport=3\n", ""},
		{"after nothing appends", "x", pline("port=3", "exists", func(l *LineRes) { l.After = `^\[main\]` }), "x\nport=3\n", ""},
		{"after twice without multiple", "[m]\n[m]\n", pline("p", "exists", func(l *LineRes) { l.After = `^\[m\]` }), "", "2 lines of"},
		{"after each with multiple", "[m]\n[m]\n", pline("p", "exists", func(l *LineRes) { l.After, l.Multiple = `^\[m\]`, true }), "[m]\np\n[m]\np\n", ""},
		{"after, line present", "[m]\n[m]\np", pline("p", "exists", func(l *LineRes) { l.After = `^\[m\]` }), "[m]\n[m]\np", ""},
		{"absent by match", "a\nport=1\nb", pline("", "absent", func(l *LineRes) { l.Match, l.MatchForAbsence = "^port=", true }), "a\nb", ""},
		{"absent by match, last line", "a\nport=1", pline("", "absent", func(l *LineRes) { l.Match, l.MatchForAbsence = "^port=", true }), "a\n", ""},
		{"absent by match twice", "port=1\nport=2\n", pline("", "absent", func(l *LineRes) { l.Match, l.MatchForAbsence = "^port=", true }), "", "2 lines of"},
		{"absent by match, multiple", "port=1\nx\nport=2\n", pline("", "absent", func(l *LineRes) {
			l.Match, l.MatchForAbsence, l.Multiple = "^port=", true, true
		}), "x\n", ""},
		{"not UTF-8", "\xff\nport=1\n", pline("port=3", "exists", match("^port=")), "", "not UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			p := filepath.Join(t.TempDir(), "f")
			mustWrite(t, p, tc.start)
			tc.l.File = p
			l := newLine(t, h, tc.l)
			if tc.err != "" {
				if _, err := l.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error with %q", err, tc.err)
				}
				if got := mustRead(t, p); got != tc.start {
					t.Fatalf("a failed edit changed the file to %q", got)
				}
				return
			}
			checkLineEdit(t, l, p, tc.start, tc.want)
		})
	}
}

func TestLinePatternValidate(t *testing.T) {
	for _, tc := range []struct {
		l   *LineRes
		err string
	}{
		{pline("a", "exists", func(l *LineRes) { l.Multiple = true }), "multiple needs match or after"},
		{pline("a", "absent", func(l *LineRes) { l.MatchForAbsence = true }), "match_for_absence needs match"},
		{pline("a", "exists", func(l *LineRes) { l.ReplaceAllMatchesNotMatchingLine = true }), "needs match"},
		{pline("a", "exists", func(l *LineRes) { l.Match = "(" }), "match: error parsing"},
		{pline("a", "exists", func(l *LineRes) { l.After = "[" }), "after: error parsing"},
		{pline("a\nb", "exists", func(l *LineRes) { l.Match = "a" }), "single line"},
		{pline("a", "absent", func(l *LineRes) { l.After = "a" }), "means nothing with state absent"},
		{pline("a", "absent", func(l *LineRes) { l.Match = "a" }), "needs match_for_absence"},
		{pline("a", "exists", func(l *LineRes) { l.Match, l.MatchForAbsence = "a", true }), "needs state absent"},
		{pline("", "exists", func(l *LineRes) { l.Match = "a" }), "need the content"},
		{pline("a", "exists", func(l *LineRes) { l.After, l.ReplaceAllMatchesNotMatchingLine = "a", true }), "needs match"},
		{pline("a", "exists", func(l *LineRes) { l.Match, l.Replace, l.ReplaceAllMatchesNotMatchingLine = "a", false, true }), "needs replace"},
	} {
		tc.l.File = "/f"
		if err := tc.l.Validate(); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: got %v, want %q", tc.l, err, tc.err)
		}
	}
	for _, l := range []*LineRes{
		pline("a", "exists", func(l *LineRes) { l.Match, l.After, l.Multiple = "^a", "^b", true }),
		pline("", "absent", func(l *LineRes) { l.Match, l.MatchForAbsence = "^a", true }),
		pline("a", "exists", func(l *LineRes) { l.Replace, l.AppendOnNoMatch = false, false }),
	} {
		l.File = "/f"
		if err := l.Validate(); err != nil {
			t.Errorf("%+v: %v", l, err)
		}
	}
}

// TestLinePatternWatch repairs a line that match keeps, after the file is
// changed by hand.
func TestLinePatternWatch(t *testing.T) {
	h := newHarness(t)
	p := filepath.Join(t.TempDir(), "f")
	mustWrite(t, p, "[main]\nport=80\n")
	l := newLine(t, h, pline("port=81", "exists", func(l *LineRes) { l.File, l.Match, l.After = p, "^port=", `^\[main\]$` }))
	startWatch(t, h, l)
	checkApply(t, l, true, false)
	expectEvent(t, h, "edit", func() { mustWrite(t, p, "[main]\nport=80\nx=1") })
	checkApply(t, l, true, false)
	if got := mustRead(t, p); got != "[main]\nport=81\nx=1\n" {
		t.Fatalf("got %q", got)
	}
	expectEvent(t, h, "edit", func() { mustWrite(t, p, "y\n[main]\nx=1\n") })
	checkApply(t, l, true, false)
	if got := mustRead(t, p); got != "y\n[main]\nport=81\nx=1\n" {
		t.Fatalf("got %q", got)
	}
}
