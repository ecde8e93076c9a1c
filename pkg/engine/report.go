package engine

import (
	"strings"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/engine/internal/textdiff"
)

// MaxDiffInput bounds the size of the two texts of a Change together:
// larger ones are described, not diffed, so a resource need not read more
// than this to report a change of content.
const MaxDiffInput = textdiff.MaxInput

// A Change is one thing that a CheckApply changed or, with apply false,
// would change, as a resource reports it through Init.Report: a property
// with its values before and after ("mode", "0644", "0600"), a text
// content whose diff the engine shows (Text), or a plain word ("created").
type Change struct {
	// What names what changes: "content", "mode", "owner", "state", ...
	What string
	// From and To, when set, are its values before and after.
	From, To string
	// Text marks a change of text content: Old and New (nil: there is no
	// file) are the content before and after, and the engine shows their
	// unified diff in noop runs (and at debug level), labelled with Path
	// (the resource's name when empty), or says that binary files differ.
	Text     bool
	Old, New []byte
	Path     string
	// Hidden marks a change of content the resource keeps secret (a file
	// with show_diff false): never diffed; From and To, when set, say
	// only its sizes, and the diff the engine shows in noop runs (and at
	// debug level) is the line "content would change (diff hidden): FROM
	// -> TO".
	Hidden bool
}

// String returns the change as the log writes it: "content", or "mode
// 0644 -> 0600".
func (c Change) String() string {
	if c.From == "" && c.To == "" {
		return c.What
	}
	return c.What + " " + orNone(c.From) + " -> " + orNone(c.To)
}

func orNone(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// A Reported is a change as the engine recorded it, for Result: the
// values of the Change, without the texts, and the size of their diff.
type Reported struct {
	What, From, To string
	// Diff is the unified diff of a text change as the log showed it
	// (capped at Config.DiffLines lines), or "" when none was made.
	Diff string
	// Text is set when the diff of a text change was made: Added and
	// Removed count its lines, unless Binary says that the contents are
	// not text.
	Text           bool
	Added, Removed int
	Binary         bool
	logged         bool // a line the resource logged (Init.Logf), not a change
}

// String returns the change as the log writes it.
func (r Reported) String() string {
	return Change{What: r.What, From: r.From, To: r.To}.String()
}

// A Result is the outcome of one CheckApply (or of an Init or Watch that
// failed for good), as Config.Results receives it.
type Result struct {
	Time            time.Time // when it ended
	Kind, Name, Pos string
	Members         []string // the resources its group runs for, as kind[name]
	// Op is "checkapply", or "watch" for an Init or Watch that failed.
	Op string
	// Noop is set when the resource runs in noop mode (Config.Noop,
	// Meta:noop): its CheckApply does not change anything.
	Noop    bool
	Recheck bool   // a periodic recheck (Config.Recheck), which changes nothing either
	Reason  string // why it ran: "start", "event", "refresh from exec[x]", ...
	// Changed is set when it changed something or, in noop mode or a
	// recheck, found something to change.
	Changed  bool
	Err      error
	Failed   bool // the error ended the retries: the resource failed for good
	Duration time.Duration
	// Changes are what it reported through Init.Report, and what it
	// logged through Init.Logf during the call (as What alone).
	Changes []Reported
}

// why records the reasons of a pending CheckApply.
type why uint16

const (
	whyStart   why = 1 << iota // its Watch started, or it has none
	whyEvent                   // its Watch saw a change
	whyPoll                    // a poll (Meta:poll, or a Watch a kernel limit keeps from starting)
	whyRefresh                 // a notification from a dependency that changed something
	whyDep                     // a dependency changed something
	whyValue                   // a value sent to it changed
	whyRetry                   // the retry of an error
	whyRecover                 // another try after a failure for good
	whyDrift                   // a recheck found drift or an error
	whyEdges                   // its dependencies changed in a new graph
)

// whyWords name the reasons, in the order of their bits; %s is the
// dependency behind the reason.
var whyWords = []string{"start", "event", "poll", "refresh from %s", "dependency %s changed", "value sent by %s",
	"retry", "recover", "recheck found drift", "new dependencies"}

// fromSlot returns the slot of the dependency behind the reason w (its
// bit in vstate.fromSet, its place in vextra.whyFrom), or -1 for a reason
// that names none.
func fromSlot(w why) int {
	switch w {
	case whyRefresh:
		return 0
	case whyDep:
		return 1
	case whyValue:
		return 2
	}
	return -1
}

// mark makes vs dirty for the reason w, from the dependency from (nil
// for the reasons that name none; the first one is named).
func (vs *vstate) mark(w why, from *vstate) {
	vs.dirty = true
	vs.why |= w
	if k := fromSlot(w); k >= 0 && from != nil {
		vs.markFrom(k, from)
	}
}

// markFrom records from as the dependency behind the reason of slot k,
// unless one is already. The first dependency named is kept in vs; one
// of another slot that differs from it, which takes two dependencies
// changing between two runs, in its vextra.
func (vs *vstate) markFrom(k int, from *vstate) {
	bit := uint8(1) << k
	if vs.fromSet&bit != 0 {
		return
	}
	vs.fromSet |= bit
	if vs.whyFrom == nil || vs.whyFrom == from {
		vs.whyFrom = from
		return
	}
	vs.extra().whyFrom[k] = from
}

// fromOf returns the dependency behind the reason of slot k.
func (vs *vstate) fromOf(k int) *vstate {
	if vs.x != nil && vs.x.whyFrom[k] != nil {
		return vs.x.whyFrom[k]
	}
	return vs.whyFrom
}

// reason returns the reasons of vs's pending CheckApply as words, and
// forgets them.
func (vs *vstate) reason() string {
	var words []string
	for i, w := range whyWords {
		b := why(1) << i
		if vs.why&b == 0 {
			continue
		}
		if k := fromSlot(b); k >= 0 {
			w = strings.Replace(w, "%s", vs.fromOf(k).v.key, 1)
		}
		words = append(words, w)
	}
	vs.why, vs.whyFrom, vs.fromSet = 0, nil, 0
	if vs.x != nil {
		vs.x.whyFrom = [3]*vstate{}
	}
	return strings.Join(words, ", ")
}

// report records a change reported by the resource of vs during its
// CheckApply, with the diff of a text change when it is wanted.
func (e *Engine) report(vs *vstate, c Change) {
	r := Reported{What: c.What, From: c.From, To: c.To}
	if vs.secret && (r.From != "" || r.To != "") {
		// A value received from a secret may be any property's.
		r.From, r.To = "(secret)", "(secret)"
	}
	if c.Hidden {
		c.Text = false
		if vs.diffNow && e.cfg.DiffLines > 0 {
			verb := "changed"
			if e.cfg.Noop || vs.meta().Noop || vs.checkRun {
				verb = "would change"
			}
			r.Diff = c.What + " " + verb + " (diff hidden)"
			if r.From != "" || r.To != "" {
				r.Diff += ": " + orNone(r.From) + " -> " + orNone(r.To)
			}
			r.Diff += "\n"
		}
	}
	if c.Text && vs.diffNow && vs.secret {
		if e.cfg.DiffLines > 0 {
			r.Diff = "not shown: the content holds a secret that " + vs.v.key + " receives (from a password resource)\n"
		}
	} else if c.Text && vs.diffNow {
		name := c.Path
		if name == "" {
			name = vs.v.name()
		}
		lines := e.cfg.DiffLines
		if lines <= 0 {
			lines = 1 << 30 // for Results alone: counted, never shown
		}
		d := textdiff.Unified(name, c.Old, c.New, lines)
		r.Text = !d.Large
		r.Added, r.Removed, r.Binary = d.Added, d.Removed, d.Binary
		if e.cfg.DiffLines > 0 {
			r.Diff = d.Text
		}
	}
	vs.mu.Lock()
	if vs.capture {
		vs.run.reports = append(vs.run.reports, r)
		vs.mu.Unlock()
		return
	}
	vs.mu.Unlock()
	e.logf("%s: %s", vs.v.key, r.String())
}

// notesOf returns the changes as the log writes them.
func notesOf(rs []Reported) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return out
}

// diffText joins the diffs of the changes that carry one, for the "diff"
// attribute of a change's record.
func diffText(rs []Reported) string {
	var b strings.Builder
	for _, r := range rs {
		if r.Diff == "" {
			continue
		}
		b.WriteString(r.Diff)
		if !strings.HasSuffix(r.Diff, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// A SecretSender is a kind whose sent values are secrets (password): the
// engine never shows the texts of a resource that receives one, directly
// or through other resources that pass it on, in diffs, events or
// results.
type SecretSender interface {
	SendsSecrets() bool
}

// receivesSecret reports whether vs receives a value over a send/recv
// edge from a SecretSender, or from a resource that receives one. Its
// senders started before it (they are its dependencies), so their secret
// is known.
func (s *sched) receivesSecret(vs *vstate) bool {
	for _, e := range vs.ins() {
		if e.send() == "" {
			continue
		}
		if ss, ok := e.from.v.Res.(SecretSender); ok && ss.SendsSecrets() || e.from.secret {
			return true
		}
	}
	return false
}
