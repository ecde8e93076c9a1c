package puppet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/puppet/eval"
)

// TestNumberErrorsLikePuppet checks conversions and functions that real
// Puppet refuses: the native engine must refuse them too, never give a
// value (testdata/corpus/70-numbers-slices.pp has the ones that succeed).
func TestNumberErrorsLikePuppet(t *testing.T) {
	exprs := []string{
		`Integer("1_000")`, `Integer("0o7")`, `Integer("08")`, `Integer(" 12 ")`, `Integer("1e3")`, `Integer("")`,
		`Integer("1f", 16)`, `Integer("0_7")`, `Integer("12abc")`, `Integer("12\n")`, `Integer("12", 3)`,
		`Integer("0x1f", 8)`, `Integer("-\n5")`, `Numeric("1_000")`, `Numeric(".5")`, `Numeric("5.")`,
		`Numeric("inf")`, `Numeric("NaN")`, `Numeric(" 2.5 ")`, `Numeric("-.5")`, `Numeric("1.0e+2")`,
		`Numeric("00.5")`, `Numeric("-0b11")`, `Numeric("0e5")`, `Numeric("0.0e1")`, `Numeric("1e400")`,
		`Numeric("\n5")`, `Float("-0b11")`, `Float("1_0")`, `chop(["ab", 3])`, `reverse(5)`, `slice([1], 0)`,
		`[1, 2].slice(2) |$a, $b, $c| { $a }`,
	}
	pb := startPuppet(t)
	dir := t.TempDir()
	for i, e := range exprs {
		t.Run(e, func(t *testing.T) {
			src := fmt.Sprintf("notify { 'r': message => String(%s) }\n", e)
			f := filepath.Join(dir, fmt.Sprintf("m%d.pp", i))
			if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if perr := pb.compileError(t, f); perr == "" {
				t.Fatalf("real Puppet accepts %s: move it to the corpus", e)
			}
			if cat, err := eval.Compile(f, src, eval.Options{Facts: testFacts, Certname: "testnode",
				ModulePath: []string{"/usr/share/puppet/modules"}}); err == nil {
				t.Fatalf("native engine accepts %s: %v", e, cat.Resources)
			}
		})
	}
}

// compileError compiles a manifest with real Puppet and returns its
// error ("" when it compiles).
func (p *puppetBatch) compileError(t *testing.T, manifest string) string {
	t.Helper()
	if err := p.in.Encode(map[string]any{"manifest": manifest, "certname": "testnode",
		"modulepath": "/usr/share/puppet/modules", "facts": testFacts}); err != nil {
		t.Fatal(err)
	}
	if !p.out.Scan() {
		t.Fatalf("puppet batch compiler ended: %v", p.out.Err())
	}
	var resp struct{ Error string }
	if err := json.Unmarshal(p.out.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	return resp.Error
}
