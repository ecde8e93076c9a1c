package txtar

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden runs one subtest per archive matching glob: run gets the archive's
// files other than OUTPUT and returns the text to compare with OUTPUT. With
// update, the OUTPUT sections are rewritten instead of compared.
func Golden(t *testing.T, glob string, update bool, run func(t *testing.T, files []File) string) {
	t.Helper()
	paths, _ := filepath.Glob(glob)
	if len(paths) == 0 {
		t.Fatalf("no golden files match %s", glob)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			comment, fs := Parse(string(data))
			want, wi := "", -1
			var inputs []File
			for i, f := range fs {
				if f.Name == "OUTPUT" {
					want, wi = f.Data, i
					continue
				}
				inputs = append(inputs, f)
			}
			got := run(t, inputs)
			if update {
				if wi < 0 {
					fs = append(fs, File{Name: "OUTPUT"})
					wi = len(fs) - 1
				}
				fs[wi].Data = got
				if err := os.WriteFile(path, []byte(Format(comment, fs)), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}
