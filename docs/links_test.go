package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/internal/refdoc"
)

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile("^#{1,6} (.*)$")
)

// anchors returns the heading anchors of a Markdown file.
func anchors(t *testing.T, path string) map[string]bool {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]bool{}
	fence := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if m := headingRE.FindStringSubmatch(line); m != nil && !fence {
			out[refdoc.Anchor(strings.ReplaceAll(m[1], "`", ""))] = true
		}
	}
	return out
}

// TestLinks checks that every relative link of the documentation (docs/,
// the README, the examples' READMEs) names a file of the repository and,
// with a #fragment, a heading of it: the documentation stands alone.
func TestLinks(t *testing.T) {
	files, _ := filepath.Glob("*.md")
	more, _ := filepath.Glob("reference/*.md")
	ex, _ := filepath.Glob("../examples/*/README.md")
	files = append(append(append(files, more...), ex...), "../README.md")
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range linkRE.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, frag, _ := strings.Cut(target, "#")
			full := file
			if path != "" {
				full = filepath.Join(filepath.Dir(file), path)
			}
			if _, err := os.Stat(full); err != nil {
				t.Errorf("%s: link %q: %v", file, target, err)
				continue
			}
			if frag != "" && strings.HasSuffix(full, ".md") && !anchors(t, full)[frag] {
				t.Errorf("%s: link %q: no heading with anchor %q in %s", file, target, frag, full)
			}
		}
	}
}
