package mgmtapply

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/cli"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
	"github.com/mgmtpipe/mgmt/pkg/world/worldpipe"
	"github.com/mgmtpipe/mgmt/test/testutil"
)

// metricsChild makes the test binary a world client child whose member's
// metrics are the text named by $METRICS_TEXT (see childTexts).
const metricsChild = "metrics-child"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == metricsChild {
		err := worldpipe.Serve(os.Stdin, os.Stdout, worldpipe.ServeConfig{
			Open:      func(worldpipe.Config) (worldpipe.Backend, error) { return textWorld{}, nil },
			Transient: func(error) bool { return false },
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// childTexts are the metrics texts a child can answer with.
var childTexts = map[string]string{
	"good": "# HELP etcd_server_has_leader Whether a leader exists.\n# TYPE etcd_server_has_leader gauge\netcd_server_has_leader 1\n",
	// Not the format: a label value's quote is missing.
	"bad": "# TYPE etcd_x gauge\netcd_x{a=\"1} 1\n",
	// A family of the engine's registry, which must not appear twice.
	"clash": "# TYPE go_goroutines gauge\ngo_goroutines 1\n",
	// "huge" is over the bound, though well formed: made by the child
	// only, so that the tests' live heap stays as it is.
}

// textWorld is a world whose only call is Metrics.
type textWorld struct{ worldapi.World }

func (textWorld) Metrics() ([]byte, error) {
	if os.Getenv("METRICS_TEXT") == "huge" {
		return []byte(strings.Repeat("etcd_x{a=\"1234567890123456789012345678901234567890\"} 1\n", worldpipe.MaxMetrics/50)), nil
	}
	return []byte(childTexts[os.Getenv("METRICS_TEXT")]), nil
}
func (textWorld) Close() error { return nil }

// TestMetricsOfTheChild serves the engine's metrics with those of a real
// child process: a good text is there, before the engine's families
// (sorted by name); a bad one, one with a name of the engine's, or one
// over the bound is left out of an endpoint that still serves the rest,
// and logged once, not at every scrape.
func TestMetricsOfTheChild(t *testing.T) {
	for _, text := range []string{"good", "bad", "clash", "huge"} {
		t.Run(text, func(t *testing.T) {
			t.Setenv("METRICS_TEXT", text)
			wld, err := worldpipe.Open(worldpipe.ClientConfig{
				World: worldpipe.Config{Hostname: "h"}, Path: os.Args[0], Args: []string{metricsChild},
				Stderr: os.Stderr, Logf: t.Logf,
			})
			if err != nil {
				t.Fatal(err)
			}
			defer wld.Close()
			if err := wld.Check(context.Background()); err != nil {
				t.Fatal(err)
			}
			log := &testutil.SyncBuffer{}
			stop, err := serveMetrics("127.0.0.1:0", engine.NewMetrics(), wld, cli.NewLogger(name, log, cli.LogFlags{}))
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			url := regexp.MustCompile(`http://\S+/metrics`).FindString(log.String())
			for range 2 {
				got := get(t, url)
				etcd, goroutines := strings.Index(got, "etcd_"), strings.Index(got, "# HELP go_goroutines")
				if goroutines < 0 || strings.Count(got, "# TYPE go_goroutines ") != 1 || !strings.Contains(got, "\nmgmt_graph_seq -1\n") {
					t.Fatalf("the engine's metrics are not there once:\n%s", got)
				}
				if text == "good" {
					if etcd < 0 || etcd > goroutines || !strings.Contains(got, childTexts["good"]) {
						t.Fatalf("the child's metrics are not there, first:\n%s", got)
					}
				} else if etcd >= 0 {
					t.Fatalf("a %s text from the child is served:\n%.2000s", text, got)
				}
			}
			warnings := strings.Count(log.String(), "etcd's metrics left out")
			if text == "good" && warnings != 0 || text != "good" && warnings != 1 {
				t.Fatalf("%d warnings in the log:\n%s", warnings, log)
			}
			if text == "huge" && !strings.Contains(log.String(), "over the limit of 4194304") {
				t.Fatalf("the log does not say why:\n%s", log)
			}
		})
	}
}

// get returns the body of a scrape, which must succeed.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", url, resp.Status)
	}
	return string(b)
}
