package puppet

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
	"github.com/mgmtpipe/mgmt/pkg/puppet/eval"
)

// testFacts is the fact set both engines get in the differential test
// (testdata/corpus/facts.json, which pkg/puppet/eval's tests read too).
var testFacts = func() map[string]any {
	data, err := os.ReadFile(filepath.Join("testdata", "corpus", "facts.json"))
	if err != nil {
		panic(err)
	}
	var facts map[string]any
	if err := json.Unmarshal(data, &facts); err != nil {
		panic(err)
	}
	return facts
}()

// puppetBatch compiles manifests with the installed Puppet, all in one
// Ruby process (testdata/batch.rb) to pay Puppet's start-up once.
type puppetBatch struct {
	cmd *exec.Cmd
	in  *json.Encoder
	out *bufio.Scanner
}

func startPuppet(t *testing.T) *puppetBatch {
	t.Helper()
	if PuppetPath() == "" {
		testneed.Missing(t, "Puppet is not installed (apt-get install puppet): the differential test needs it")
	}
	ruby, err := exec.LookPath("ruby")
	if err != nil {
		testneed.Missing(t, "ruby is not installed (apt-get install ruby)")
	}
	cmd := exec.Command(ruby, "testdata/batch.rb")
	w, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		w.Close()
		cmd.Wait()
	})
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	return &puppetBatch{cmd: cmd, in: json.NewEncoder(w), out: sc}
}

func (p *puppetBatch) compile(t *testing.T, manifest, modulepath string) *catalog.Catalog {
	t.Helper()
	abs, _ := filepath.Abs(manifest)
	if err := p.in.Encode(map[string]any{"manifest": abs, "certname": "testnode",
		"modulepath": modulepath, "facts": testFacts}); err != nil {
		t.Fatal(err)
	}
	if !p.out.Scan() {
		t.Fatalf("puppet batch compiler ended: %v", p.out.Err())
	}
	var resp struct {
		Catalog json.RawMessage
		Error   string
	}
	if err := json.Unmarshal(p.out.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	if resp.Error != "" {
		t.Fatalf("puppet: %s", resp.Error)
	}
	c, err := catalog.Decode(strings.NewReader(string(resp.Catalog)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestDifferential compiles every manifest of testdata/corpus with real
// Puppet and with the native engine, and requires identical graphs
// (resources, parameters, edges; positions aside: Puppet has no columns).
func TestDifferential(t *testing.T) {
	files, _ := filepath.Glob("testdata/corpus/*.pp")
	if len(files) < 40 {
		t.Fatalf("corpus has %d manifests, want at least 40", len(files))
	}
	pb := startPuppet(t)
	mp, _ := filepath.Abs("testdata/corpus/modules")
	mp += ":/usr/share/puppet/modules"
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".pp")
		t.Run(name, func(t *testing.T) {
			want, _, err := Translate(pb.compile(t, f, mp), Options{})
			if err != nil {
				t.Fatalf("translating Puppet's catalog: %v", err)
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			abs, _ := filepath.Abs(f)
			cat, err := eval.Compile(abs, string(src), eval.Options{Facts: testFacts, Certname: "testnode",
				ModulePath: filepath.SplitList(mp), StrictTypes: true})
			if err != nil {
				t.Fatalf("native: %v", err)
			}
			got, _, err := Translate(cat, Options{})
			if err != nil {
				t.Fatalf("translating the native catalog: %v", err)
			}
			if g, w := stripPos(got), stripPos(want); g != w {
				t.Errorf("native graph differs from Puppet's:\n%s", lineDiff(g, w))
			}
		})
	}
}

// lineDiff shows the lines only one side has.
func lineDiff(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	count := map[string]int{}
	for _, l := range wl {
		count[l]++
	}
	var b strings.Builder
	for _, l := range gl {
		if count[l] > 0 {
			count[l]--
			continue
		}
		b.WriteString("+native " + l + "\n")
	}
	gc := map[string]int{}
	for _, l := range gl {
		gc[l]++
	}
	for _, l := range wl {
		if gc[l] > 0 {
			gc[l]--
			continue
		}
		b.WriteString("-puppet " + l + "\n")
	}
	return b.String()
}
