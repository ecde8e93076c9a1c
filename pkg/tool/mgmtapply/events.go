package mgmtapply

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// maxQueued bounds the results waiting for a slow reader of --events: the
// engine never waits for it; beyond this, results are counted as lost and
// the count is written once the reader catches up.
const maxQueued = 1 << 16

// An event is one line of --events: the outcome of a CheckApply (type
// "result"), results lost to a slow reader ("lost"), or the summary at
// exit ("summary").
type event struct {
	Type     string         `json:"type"`
	Time     time.Time      `json:"time"`
	Kind     string         `json:"kind,omitempty"`
	Name     string         `json:"name,omitempty"`
	Pos      string         `json:"pos,omitempty"`
	Members  []string       `json:"members,omitempty"`
	Op       string         `json:"op,omitempty"`
	Noop     bool           `json:"noop"`
	Recheck  bool           `json:"recheck,omitempty"`
	Reason   string         `json:"reason,omitempty"`
	Changed  *bool          `json:"changed,omitempty"`
	Error    string         `json:"error,omitempty"`
	Failed   bool           `json:"failed,omitempty"`
	Duration *float64       `json:"duration_ms,omitempty"`
	Changes  []eventChange  `json:"changes,omitempty"`
	Lost     int            `json:"lost,omitempty"`
	Summary  *summaryCounts `json:"summary,omitempty"`
}

// An eventChange is one change of a result: what, its values, and for a
// text its diff's size (never the text itself).
type eventChange struct {
	What    string `json:"what"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	Added   *int   `json:"added,omitempty"`
	Removed *int   `json:"removed,omitempty"`
	Binary  bool   `json:"binary,omitempty"`
}

// summaryCounts are the counts of the summary line.
type summaryCounts struct {
	Resources int `json:"resources"` // resources of the graph
	Changed   int `json:"changed"`   // resources changed since the start
	Pending   int `json:"pending"`   // resources that would change (noop)
	InSync    int `json:"in_sync"`   // resources with nothing to change
	Failed    int `json:"failed"`    // resources whose last run failed
	Skipped   int `json:"skipped"`   // resources not run: a dependency failed
	Exit      int `json:"exit"`      // the exit code
}

// An eventLog writes the results of the engine as JSON lines, from its own
// goroutine, so that a slow reader never holds the engine up.
type eventLog struct {
	mu     sync.Mutex
	queue  []event
	lost   int
	closed bool
	wake   chan struct{}
	done   chan struct{}

	w      io.Writer
	closeW func() error
	lg     *cli.Logger
	noop   bool // --noop, for the summary
}

// openEvents opens the events file path ("-": stdout) and starts its
// writer. The file is created with mode 0600: errors can name what a
// resource read.
func openEvents(path string, stdout io.Writer, lg *cli.Logger, noop bool) (*eventLog, error) {
	l := &eventLog{wake: make(chan struct{}, 1), done: make(chan struct{}), w: stdout, closeW: func() error { return nil }, lg: lg, noop: noop}
	if path != "-" {
		fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return nil, fmt.Errorf("events: %v", err)
		}
		l.w, l.closeW = fh, fh.Close
	}
	go l.run()
	return l, nil
}

// add queues the event of a result; it is the engine's Config.Results.
func (l *eventLog) add(r engine.Result) {
	l.push(resultEvent(r))
}

func (l *eventLog) push(ev event) {
	l.mu.Lock()
	if len(l.queue) >= maxQueued {
		l.lost++
	} else {
		l.queue = append(l.queue, ev)
	}
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// close writes what is queued and the summary, and closes the file.
func (l *eventLog) close(s summaryCounts) {
	l.push(event{Type: "summary", Time: time.Now(), Noop: l.noop, Summary: &s})
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	<-l.done
	if err := l.closeW(); err != nil {
		l.lg.Errorf("events: %v", err)
	}
}

// run writes the queued events until close; a write error is logged once
// and the rest are dropped.
func (l *eventLog) run() {
	defer close(l.done)
	enc := json.NewEncoder(l.w)
	var werr error
	for {
		<-l.wake
		l.mu.Lock()
		batch, lost, closed := l.queue, l.lost, l.closed
		l.queue, l.lost = nil, 0
		l.mu.Unlock()
		if lost > 0 {
			batch = append([]event{{Type: "lost", Time: time.Now(), Lost: lost}}, batch...)
		}
		for _, ev := range batch {
			if werr == nil {
				if werr = enc.Encode(ev); werr != nil {
					l.lg.Errorf("events: %v (no more events are written)", werr)
				}
			}
		}
		if closed {
			return
		}
	}
}

// resultEvent turns a result into its event.
func resultEvent(r engine.Result) event {
	ev := event{Type: "result", Time: r.Time, Kind: r.Kind, Name: r.Name, Pos: r.Pos, Members: r.Members,
		Op: r.Op, Noop: r.Noop, Recheck: r.Recheck, Reason: r.Reason, Failed: r.Failed}
	if r.Op == "checkapply" {
		changed := r.Changed
		ms := float64(r.Duration.Microseconds()) / 1000
		ev.Changed, ev.Duration = &changed, &ms
	}
	if r.Err != nil {
		ev.Error = r.Err.Error()
	}
	for _, c := range r.Changes {
		ec := eventChange{What: c.What, From: c.From, To: c.To, Binary: c.Binary}
		if c.Text && !c.Binary {
			added, removed := c.Added, c.Removed
			ec.Added, ec.Removed = &added, &removed
		}
		ev.Changes = append(ev.Changes, ec)
	}
	return ev
}
