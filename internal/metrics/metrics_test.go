package metrics

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
)

// TestExposition checks the text of counters and gauges: families
// sorted by name, series by label values, labels by name, escapes in
// help texts and label values, values as Prometheus writes them, and
// families without series left out.
func TestExposition(t *testing.T) {
	r := NewRegistry()
	g := r.NewGauge("b_gauge", "A gauge.\nIts help has a \\ and a newline.")
	c := r.NewCounter("a_total", `Calls, "quoted".`, "kind", "apply")
	r.NewCounter("c_empty", "A family without series.", "kind")
	g.With().Set(-2.5)
	c.With("file", "true").Add(3)
	c.With("exec", "false").Inc()
	c.With("exec", "true").Inc()
	c.With("a\\b\"c\nd", "x").Add(1e21)
	c.With("\xff", "y").Add(0.0001)
	want := `# HELP a_total Calls, "quoted".
# TYPE a_total counter
a_total{apply="false",kind="exec"} 1
a_total{apply="true",kind="exec"} 1
a_total{apply="true",kind="file"} 3
a_total{apply="x",kind="a\\b\"c\nd"} 1e+21
a_total{apply="y",kind="` + "\uFFFD" + `"} 0.0001
# HELP b_gauge A gauge.\nIts help has a \\ and a newline.
# TYPE b_gauge gauge
b_gauge -2.5
`
	if got := string(r.AppendText(nil)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if err := Check([]byte(want), ""); err != nil {
		t.Errorf("Check refuses the exposition: %v", err)
	}
}

// TestReset checks that a reset vec shows no series until used again.
func TestReset(t *testing.T) {
	r := NewRegistry()
	v := r.NewGauge("g", "G.", "kind")
	v.With("a").Set(1)
	v.Reset()
	if got := string(r.AppendText(nil)); got != "" {
		t.Fatalf("after Reset: %q", got)
	}
	v.With("b").Set(2)
	if got := string(r.AppendText(nil)); !strings.HasSuffix(got, "g{kind=\"b\"} 2\n") {
		t.Fatalf("after Reset and With: %q", got)
	}
}

func TestAppendFloat(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {1, "1"}, {-1, "-1"}, {636520, "636520"},
		{1.172352e+06, "1.172352e+06"}, {0.000130544, "0.000130544"}, {1e-5, "1e-05"},
		{1.7957501266265225e+09, "1.7957501266265225e+09"}, {9.223372036854776e+18, "9.223372036854776e+18"},
		{math.NaN(), "NaN"}, {math.Inf(1), "+Inf"}, {math.Inf(-1), "-Inf"}, {0.1, "0.1"},
	} {
		if got := string(AppendFloat(nil, c.f)); got != c.want {
			t.Errorf("AppendFloat(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}

// TestConcurrent adds from many goroutines (run with -race).
func TestConcurrent(t *testing.T) {
	r := NewRegistry()
	v := r.NewCounter("n_total", "N.", "kind")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 1000 {
				v.With([]string{"a", "b"}[i%2]).Inc()
				r.AppendText(nil)
			}
		}()
	}
	wg.Wait()
	if a, b := v.With("a").Value(), v.With("b").Value(); a != 4000 || b != 4000 {
		t.Fatalf("a %v, b %v, want 4000 each", a, b)
	}
}

// TestRegisterMistakes checks that a name registered twice, invalid
// names and a name under a text source's prefix panic.
func TestRegisterMistakes(t *testing.T) {
	for name, f := range map[string]func(r *Registry){
		"twice":          func(r *Registry) { r.NewGauge("x", ""); r.NewCounter("x", "") },
		"invalid name":   func(r *Registry) { r.NewGauge("1x", "") },
		"invalid label":  func(r *Registry) { r.NewGauge("x", "", "a-b") },
		"repeated label": func(r *Registry) { r.NewGauge("x", "", "a", "a") },
		"reserved label": func(r *Registry) { r.NewGauge("x", "", "__name__") },
		"under a prefix": func(r *Registry) { r.AddText("etcd_", 1, nil, nil); r.NewGauge("etcd_x", "") },
		"prefix of one":  func(r *Registry) { r.NewGauge("etcd_x", ""); r.AddText("etcd_", 1, nil, nil) },
		"collector":      func(r *Registry) { r.RegisterGo(); r.NewGauge("go_goroutines", "") },
		"overlap":        func(r *Registry) { r.AddText("etcd_", 1, nil, nil); r.AddText("etcd_a", 1, nil, nil) },
		"label values":   func(r *Registry) { r.NewGauge("x", "", "a").With() },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("no panic")
				}
			}()
			f(NewRegistry())
		})
	}
}

// TestText checks a text source: written where its prefix sorts, its
// last newline added, and a text too long, refused by Check or failing
// left out whole, with its error reported.
func TestText(t *testing.T) {
	r := NewRegistry()
	r.NewGauge("a", "A.").With().Set(1)
	r.NewGauge("z", "Z.").With().Set(2)
	var text []byte
	var ferr, reported error
	r.AddText("m_", 64, func() ([]byte, error) { return text, ferr }, func(err error) { reported = err })
	for _, c := range []struct {
		text string
		ferr error
		want string // between a's and z's families
		err  string
	}{
		{"# TYPE m_x counter\nm_x 3", nil, "# TYPE m_x counter\nm_x 3\n", ""},
		{"", nil, "", ""},
		{"# TYPE m_x counter\nm_x 3\n", errors.New("no child"), "", "no child"},
		{"m_x 1\n" + strings.Repeat("m_y 1\n", 20), nil, "", "over the limit of 64"},
		{"go_x 1\n", nil, "", "go_x is not a name under m_"},
		{"m_x 1\nm_y 1\nm_x 2\n", nil, "", "line 3: the lines of m_x are not together"},
	} {
		text, ferr = []byte(c.text), c.ferr
		got := string(r.AppendText(nil))
		want := "# HELP a A.\n# TYPE a gauge\na 1\n" + c.want + "# HELP z Z.\n# TYPE z gauge\nz 2\n"
		if got != want {
			t.Errorf("text %q: got\n%s\nwant\n%s", c.text, got, want)
		}
		if c.err == "" && reported != nil || c.err != "" && (reported == nil || !strings.Contains(reported.Error(), c.err)) {
			t.Errorf("text %q: reported %v, want %q", c.text, reported, c.err)
		}
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []struct{ text, err string }{
		{"", ""},
		{"\n# a comment\n# HELP x_a Help with \\\\ and \\n.\n# TYPE x_a counter\nx_a 1\n", ""},
		{"x_a{} 1 1700000000000\nx_b{a=\"1\",b=\"\\\"\\\\\\n\",} NaN\nx_c -Inf\n", ""},
		{"# TYPE x_s summary\nx_s{quantile=\"0.5\"} 1\nx_s_sum 1\nx_s_count 1\n", ""},
		{"# TYPE x_h histogram\nx_h_bucket{le=\"+Inf\"} 1\nx_h_sum 1\nx_h_count 1\n", ""},
		{"x_a 1\n\xff", "not UTF-8"},
		{"y_a 1\n", "line 1: y_a is not a name under x_"},
		{"x-a 1\n", `invalid metric name "x-a"`},
		{"x_a\n", "want a value"},
		{"x_a 1 2 3\n", "want a value"},
		{"x_a one\n", `invalid value "one"`},
		{"x_a 0x1p3\n", `invalid value "0x1p3"`},
		{"x_a 1 1.5\n", `invalid timestamp "1.5"`},
		{"x_a{a=1} 1\n", "value not quoted"},
		{"x_a{a=\"1} 1\n", "unterminated value"},
		{"x_a{a=\"\\t\"} 1\n", "invalid escape"},
		{"x_a{a=\"1\" b=\"2\"} 1\n", "want , or }"},
		{"x_a{a=\"1\",a=\"2\"} 1\n", "repeated label name"},
		{"x_a{a\n", "unterminated labels"},
		{"x_a{1=\"\"} 1\n", "invalid or repeated label name"},
		{"x_a}1\n", `invalid metric name "x_a}1"`},
		{"# TYPE x_a counter\n# TYPE x_a gauge\n", "line 2: a TYPE line for x_a after its type"},
		{"x_a 1\n# TYPE x_a counter\n", "line 2: a TYPE line for x_a after its type or samples"},
		{"# HELP x_a a\n# HELP x_a b\n", "line 2: a second HELP line"},
		{"# HELP x_a a \\t\n", "invalid escape in the HELP text"},
		{"# TYPE x_a counter gauge\n", "without one type"},
		{"# TYPE x_a histo\n", `unknown type "histo"`},
		{"# TYPE x_a counter\nx_a_sum 1\nx_a 1\n", "line 3: the lines of x_a are not together"},
	} {
		err := Check([]byte(c.text), "x_")
		if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("Check(%q) = %v, want %q", c.text, err, c.err)
		}
	}
}

// TestRuntimeAndProcess checks that the Go and process families are
// there, each once, with the types of Prometheus's client.
func TestRuntimeAndProcess(t *testing.T) {
	r := NewRegistry()
	r.RegisterGo()
	r.RegisterProcess()
	text := string(r.AppendText(nil))
	if err := Check([]byte(text), ""); err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (\S+) (\S+)$`).FindAllStringSubmatch(text, -1) {
		types[m[1]] = m[2]
	}
	for name, typ := range map[string]string{
		"go_goroutines": "gauge", "go_threads": "gauge", "go_info": "gauge",
		"go_memstats_alloc_bytes": "gauge", "go_memstats_heap_inuse_bytes": "gauge", "go_memstats_sys_bytes": "gauge",
		"go_memstats_alloc_bytes_total": "counter", "go_memstats_mallocs_total": "counter",
		"go_gc_duration_seconds": "summary", "go_gc_gogc_percent": "gauge", "go_sched_gomaxprocs_threads": "gauge",
		"process_cpu_seconds_total": "counter", "process_resident_memory_bytes": "gauge",
		"process_virtual_memory_bytes": "gauge", "process_open_fds": "gauge", "process_max_fds": "gauge",
		"process_start_time_seconds": "gauge", "process_network_receive_bytes_total": "counter",
	} {
		if types[name] != typ {
			t.Errorf("%s is a %q, want %s", name, types[name], typ)
		}
	}
	if len(types) != len(memstats)+len(runtimeGauges)+4+len(processNames) {
		t.Errorf("%d families: %v", len(types), types)
	}
	for _, re := range []string{
		`(?m)^go_info\{version="go[^"]+"\} 1$`,
		`(?m)^go_gc_duration_seconds\{quantile="0.75"\} \S+$`,
		`(?m)^go_gc_duration_seconds_count \d+$`,
		`(?m)^process_start_time_seconds 1\.\d+e\+09$`,
		`(?m)^process_resident_memory_bytes [1-9]`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no line matches %s:\n%s", re, text)
		}
	}
}

// TestHandler checks the content type, and gzip when asked for.
func TestHandler(t *testing.T) {
	r := NewRegistry()
	r.NewGauge("g", "G.").With().Set(7)
	for _, enc := range []string{"", "gzip", "deflate, gzip;q=0.5", "gzip;q=0"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/metrics", nil)
		if enc != "" {
			req.Header.Set("Accept-Encoding", enc)
		}
		r.Handler().ServeHTTP(rec, req)
		if ct := rec.Header().Get("Content-Type"); ct != "text/plain; version=0.0.4; charset=utf-8" {
			t.Errorf("Content-Type %q", ct)
		}
		body := rec.Body.Bytes()
		gz := rec.Header().Get("Content-Encoding") == "gzip"
		if gz != (enc != "" && enc != "gzip;q=0") {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q", enc, rec.Header().Get("Content-Encoding"))
		}
		if gz {
			zr, err := gzip.NewReader(bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if string(body) != "# HELP g G.\n# TYPE g gauge\ng 7\n" {
			t.Errorf("Accept-Encoding %q: %q", enc, body)
		}
	}
}

// TestPromtool has Prometheus's own checker read the exposition of
// every kind of family, escapes included: it must parse it, and find
// nothing to say but what it says of the names below.
func TestPromtool(t *testing.T) {
	promtool := testneed.Command(t, "promtool", "prometheus")
	r := NewRegistry()
	r.RegisterGo()
	r.RegisterProcess()
	r.NewGauge("mgmt_resources_total", "Resources by kind.", "kind").With("a\\b\"c\nd\xff").Set(1)
	r.NewCounter("mgmt_checkapply_total", "Calls with a help text that has a \\ and a\nnewline.", "kind", "apply").With("file", "true").Add(2)
	r.NewGauge("mgmt_nan", "Odd values.", "v").With("nan").Set(math.NaN())
	r.AddText("etcd_", 1<<20, func() ([]byte, error) {
		return []byte("# HELP etcd_up Up.\n# TYPE etcd_up gauge\netcd_up 1\n"), nil
	}, nil)
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(r.AppendText(nil))
	out, err := cmd.CombinedOutput()
	// Exit 3: lint problems only; 1: the text did not parse.
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 3) {
		t.Fatalf("promtool check metrics: %v\n%s", err, out)
	}
	lint := strings.Split(strings.TrimSpace(string(out)), "\n")
	want := []string{`mgmt_resources_total non-counter metrics should not have "_total" suffix`}
	if !slices.Equal(lint, want) {
		t.Errorf("promtool says\n%s\nwant\n%s", out, strings.Join(want, "\n"))
	}
}

// FuzzExposition checks that what the registry writes of any help text
// and label value is a text Check accepts.
func FuzzExposition(f *testing.F) {
	f.Add("help", "value")
	f.Add("a\\b\nc\"", "x\\\"\n\xff")
	f.Fuzz(func(t *testing.T, help, value string) {
		r := NewRegistry()
		r.NewCounter("x_total", help, "l").With(value).Inc()
		if err := Check(r.AppendText(nil), "x_"); err != nil {
			t.Fatalf("help %q, value %q: %v", help, value, err)
		}
	})
}

// FuzzCheck runs Check on any text: it must not crash.
func FuzzCheck(f *testing.F) {
	f.Add([]byte("# TYPE x_a summary\nx_a{quantile=\"1\"} 1\nx_a_sum 2 3\n"))
	f.Add([]byte("x_a{a=\"\\\"\",} 1\n# HELP x_b \\n\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		Check(text, "x_")
	})
}
