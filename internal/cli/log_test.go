package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// TestFail: a positioned error of the input is written as "TOOL: POS:
// message" in every format; any other error is a record at level error.
func TestFail(t *testing.T) {
	listed := graph.ErrorList{{Pos: "a.mcl:1:2", Msg: "bad"}, {Pos: "a.mcl:3:4", Msg: "worse"}}
	for _, format := range []string{LogText, LogPlain, LogJSON} {
		for _, c := range []struct {
			err  error
			want string
		}{
			{listed, "mcl-compile: a.mcl:1:2: bad\nmcl-compile: a.mcl:3:4: worse\n"},
			{errors.New("main.pp:1:7: syntax error"), "mcl-compile: main.pp:1:7: syntax error\n"},
		} {
			var b bytes.Buffer
			NewLogger("mcl-compile", &b, LogFlags{LogFormat: format}).Fail(c.err)
			if b.String() != c.want {
				t.Errorf("%s: %q, want %q", format, b.String(), c.want)
			}
		}
	}
	for _, err := range []error{
		errors.New("open x.mcl: no such file or directory"),
		errors.New("dial https://10.0.0.1:2379: connection refused"),
		graph.ErrorList{{Msg: "scope error: no such file"}},
	} {
		var b bytes.Buffer
		NewLogger("mcl-compile", &b, LogFlags{LogFormat: LogJSON}).Fail(err)
		var rec map[string]any
		if json.Unmarshal(b.Bytes(), &rec) != nil || rec["level"] != "ERROR" || !strings.Contains(rec["msg"].(string), err.Error()) {
			t.Errorf("%v: %q, want an error record", err, b.String())
		}
	}
}
