package library

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/testneed"
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/lang/funcs/coreos"
	"github.com/mgmtpipe/mgmt/pkg/lang/sem"
)

// TestUpstreamNames runs programs in upstream's style using names the
// library gained for parity: the os family variables (against the real
// /etc/os-release), core modules imported into the scope, panic_debug,
// deploy.bootstrap_packages and the template names of mcl functions.
func TestUpstreamNames(t *testing.T) {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		testneed.Missing(t, "no /etc/os-release here: %v", err)
	}
	fam := coreos.Family(string(b))
	src := `import "os"
import "fmt" as *
import "deploy"
import "golang"
$fam = os.family()
test [printf("family %s", $fam)] {}
test [printf("is debian %t", $fam == $os.family_debian)] {}
test [printf("vars %s %s %s", $os.family_redhat, $os.family_debian, $os.family_archlinux)] {}
test [printf("panic %t", panic_debug(false, "not raised"))] {}
test [printf("pkgs %d %s", len(deploy.bootstrap_packages("ubuntu")), deploy.bootstrap_packages($os.family_redhat)[0])] {}
test [golang.template("{{ int2str 42 }} {{ example_int2str 7 }} {{ _concat \"a\" \"b\" }} {{ golang_strconv_itoa 3 }}")] {}
`
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch := run(t, ctx, src, sem.Options{Prefix: t.TempDir()}, true)
	isDeb := "false"
	if fam == "debian" {
		isDeb = "true"
	}
	waitGraph(t, ch, "family "+fam, "is debian "+isDeb, "vars redhat debian archlinux", "panic false",
		"pkgs 0 PackageKit", "42 7 ab 3")
}

// TestUpstreamNameErrors: the forms that must fail do, with the message
// given.
func TestUpstreamNameErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`test [fmt.printf("%t", panic_debug(true, "raised on purpose"))] {}` + "\nimport \"fmt\"\n", "panic: raised on purpose"},
		{"import \"deploy\"\ntest deploy.bootstrap_packages(\"plan9\") {}\n", `unknown distribution "plan9"`},
		{"import \"golang\"\ntest [golang.template(\"{{ to_upper \\\"q\\\" }}\")] {}\n", "to_upper is ambiguous: use one of golang_strings_to_upper, strings_to_upper"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, "main.mcl")
		os.WriteFile(path, []byte(tc.src), 0o644)
		prog, err := sem.Check(path, []byte(tc.src), sem.Options{Prefix: t.TempDir()})
		msg := ""
		if err == nil {
			err = sem.NewEngine(prog).Run(context.Background(), true, func(d *graph.Document) error {
				if d.Error != nil {
					msg = d.Error.Message
				}
				return nil
			})
		}
		if err != nil {
			msg = err.Error()
		}
		if !strings.Contains(msg, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.src, msg, tc.want)
		}
	}
}

// TestVUMeter records through a real arecord from ALSA's file plugin,
// fed with a second of a loud tone then a second of a softer one, and
// sees the meter follow.
func TestVUMeter(t *testing.T) {
	if _, err := exec.LookPath("arecord"); err != nil {
		testneed.Missing(t, "arecord is missing (apt-get install alsa-utils)")
	}
	dir := t.TempDir()
	var pcm []byte
	for i, amp := range []float64{0.5, 0.25} {
		for j := 0; j < 8000; j++ {
			s := int16(amp * 32767 * math.Sin(float64(j+i*8000)/5))
			pcm = binary.LittleEndian.AppendUint16(pcm, uint16(s))
		}
	}
	in := filepath.Join(dir, "in.raw")
	if err := os.WriteFile(in, pcm, 0o644); err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "asound.conf")
	os.WriteFile(conf, []byte(`pcm.!default { type file; slave.pcm "null"; file "/dev/null"; infile "`+in+`"; format "raw" }`+"\n"), 0o644)
	t.Setenv("ALSA_CONFIG_PATH", "/usr/share/alsa/alsa.conf:"+conf)
	s := startStream(t, "example.vumeter", "#", 10, 2.0)
	s.until(t, `"#####"`) // peak 0.5 of a width of 10
	s.until(t, `"##"`)    // peak 0.25 (a little below): 2.5 rounds to 2
}
