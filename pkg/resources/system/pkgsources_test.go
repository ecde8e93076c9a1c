package system

import (
	"os"
	"path/filepath"
	"testing"
)

// TestAptLocalSources checks that apt-get is asked for a package's files
// only when some source list may name a local file: repository: one-line
// lists and deb822 files, comments ignored.
func TestAptLocalSources(t *testing.T) {
	t.Setenv("APT_CONFIG", "")
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  bool
	}{
		{"no lists", nil, false},
		{"remote only", map[string]string{
			"sources.list":               "deb http://deb.debian.org/debian trixie main\n",
			"sources.list.d/a.sources":   "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: trixie\n",
			"sources.list.d/b.list":      "# deb file:/srv/old ./\ndeb https://x/ y main # file: in a comment\n",
			"sources.list.d/c.list.save": "deb file:/srv/repo ./\n",
		}, false},
		{"one-line local", map[string]string{"sources.list.d/m.list": "deb [trusted=yes] file:/srv/repo ./\n"}, true},
		{"deb822 local", map[string]string{"sources.list.d/m.sources": "Types: deb\nURIs: file:///srv/repo\nSuites: ./\n"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.Mkdir(filepath.Join(dir, "sources.list.d"), 0o755)
			for f, s := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := aptLocalSources(dir); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	t.Setenv("APT_CONFIG", "/etc/other-apt.conf")
	if !aptLocalSources(t.TempDir()) {
		t.Error("with APT_CONFIG, apt may read other lists: want true")
	}
}
