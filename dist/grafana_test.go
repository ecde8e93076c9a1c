package dist

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/test/testutil"
)

// dashboardMetric matches the metric names a query of the dashboard uses.
var dashboardMetric = regexp.MustCompile(`\b(?:mgmt|etcd|process|go)_[a-z0-9_]+\b`)

// endpoint matches the log line of a tool serving its metrics.
var endpoint = regexp.MustCompile(`prometheus metrics on (http://\S+/metrics)`)

// TestGrafanaDashboard checks that grafana/mgmt.json is valid JSON and that
// every metric its queries use is one the tools export: a real mgmt-apply,
// which runs the private member of its world for a kv resource, and a real
// mgmt-cluster member, each with --prometheus, are scraped.
func TestGrafanaDashboard(t *testing.T) {
	data, err := os.ReadFile("grafana/mgmt.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(data, &dash); err != nil {
		t.Fatalf("grafana/mgmt.json: %v", err)
	}
	want := map[string]string{} // metric -> panel
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			for _, m := range dashboardMetric.FindAllString(q.Expr, -1) {
				want[m] = p.Title
			}
		}
	}
	if len(want) == 0 {
		t.Fatal("the dashboard queries no metric")
	}

	dir := t.TempDir()
	apply := testutil.Start(t, "mgmt-apply", "--prefix", dir+"/apply", "--prometheus", "--prometheus-listen", "127.0.0.1:0")
	apply.Write(`{"mgmt":"graph/v1","graph":"main","seq":7,"resources":[` +
		`{"kind":"kv","name":"dashboard","params":{"key":"dashboard","value":"1"}},` +
		fmt.Sprintf(`{"kind":"file","name":"%s/f","params":{"state":"exists","content":"x\n"}}]}`, dir) + "\n")
	apply.WaitLines(`graph seq 7 converged`, 1)
	member := testutil.Start(t, "mgmt-cluster", "run", "--prefix", dir+"/cluster", "--prometheus", "--prometheus-listen", "127.0.0.1:0")
	member.WaitLines(`running as member`, 1)

	applied := scrape(t, apply)
	if applied["mgmt_converged"] != "1" || applied["mgmt_graph_seq"] != "7" {
		t.Errorf("mgmt-apply reports mgmt_converged %q and mgmt_graph_seq %q, want 1 and 7", applied["mgmt_converged"], applied["mgmt_graph_seq"])
	}
	if applied["etcd_server_has_leader"] != "1" {
		t.Errorf("mgmt-apply, running its private member, reports etcd_server_has_leader %q, want 1", applied["etcd_server_has_leader"])
	}
	cluster := scrape(t, member)
	if cluster["etcd_server_has_leader"] != "1" {
		t.Errorf("mgmt-cluster reports etcd_server_has_leader %q, want 1", cluster["etcd_server_has_leader"])
	}
	var missing []string
	for m, panel := range want {
		if _, ok := applied[m]; ok {
			continue
		}
		if _, ok := cluster[m]; !ok {
			missing = append(missing, fmt.Sprintf("%s (panel %q)", m, panel))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("the dashboard queries metrics no tool exports: %s", strings.Join(missing, ", "))
	}
}

// scrape reads the metrics endpoint p logged and returns the value of the
// first sample of each metric name.
func scrape(t *testing.T, p *testutil.Proc) map[string]string {
	t.Helper()
	p.WaitLines(endpoint.String(), 1)
	url := endpoint.FindStringSubmatch(p.Log())[1]
	c := &http.Client{Timeout: time.Minute}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s: %s\n%s", url, resp.Status, b)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, rest, _ := strings.Cut(line, " ")
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name = name[:i]
			rest = line[strings.LastIndexByte(line, '}')+2:]
		}
		if _, seen := out[name]; !seen {
			out[name] = strings.Fields(rest)[0]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
