package resources

import (
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// reportChanges says what a CheckApply changed, or with apply false would
// change, through the engine's Init.Report; with an engine (or a test)
// that takes no reports, as one Logf line.
func reportChanges(init *engine.Init, cs ...engine.Change) {
	if init == nil || len(cs) == 0 {
		return
	}
	if engine.TakesReports(init) {
		for _, c := range cs {
			init.Report(c)
		}
		return
	}
	words := make([]string, len(cs))
	for i, c := range cs {
		words[i] = c.String()
	}
	init.Logf("%s", strings.Join(words, ", "))
}

// textChange returns the change of a file's text content from old to new
// (nil: no file), described by what.
func textChange(what, path string, old, new []byte) engine.Change {
	return engine.Change{What: what, Text: true, Old: old, New: new, Path: path}
}

// hiddenChange returns the change of a secret content (show_diff false)
// of old bytes (-1: no file) to new bytes, described by what: its sizes
// only.
func hiddenChange(what string, old int64, new int) engine.Change {
	from := "absent"
	if old >= 0 {
		from = strconv.FormatInt(old, 10) + " bytes"
	}
	return engine.Change{What: what, Hidden: true, From: from, To: strconv.Itoa(new) + " bytes"}
}
