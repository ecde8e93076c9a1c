package resources_test

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tarEntries returns the names and contents of a tar.gz or tar file's
// entries ("" for a missing or broken archive).
func tarEntries(p string, gz bool) map[string]string {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	var r io.Reader = f
	if gz {
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil
		}
		r = zr
	}
	out := map[string]string{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			return nil
		}
		b, _ := io.ReadAll(tr)
		out[h.Name] = string(b)
	}
}

// TestTarGzipDrift archives a directory and compresses the archive; an
// input edited, the archive edited and the compressed file removed by hand
// are all repaired by the running mgmt-apply.
func TestTarGzipDrift(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "site")
	os.MkdirAll(filepath.Join(src, "css"), 0o755)
	os.WriteFile(filepath.Join(src, "index.html"), []byte("<h1>v1</h1>"), 0o644)
	os.WriteFile(filepath.Join(src, "css", "a.css"), []byte("body{}"), 0o644)
	archive, gz := filepath.Join(dir, "site.tar"), filepath.Join(dir, "site.tar.gz")
	rs := []res{
		{Kind: "tar", Name: archive, Params: map[string]any{"inputs": []string{src + "/"}}},
		{Kind: "gzip", Name: gz, Params: map[string]any{"input": archive, "level": 9}},
	}
	p := start(t, "--tmp-prefix")
	p.Write(doc(t, 1, rs, nil))
	has := func(content string) func() bool {
		return func() bool {
			e := tarEntries(gz, true)
			return e["index.html"] == content && e["css/a.css"] == "body{}" && e["css/"] == ""
		}
	}
	p.Until("archive compressed", has("<h1>v1</h1>"))
	// The gzip depends on the tar (automatic edge on its input), so it
	// never compressed a half-made archive.
	if n := p.Count(`gzip\[.*\]: changed`); n != 1 {
		t.Fatalf("the gzip ran %d times:\n%s", n, p.Log())
	}
	os.WriteFile(filepath.Join(src, "index.html"), []byte("<h1>v2</h1>"), 0o644)
	p.Until("rebuilt after an input changed", has("<h1>v2</h1>"))
	os.WriteFile(archive, []byte("junk"), 0o600)
	p.Until("archive repaired", func() bool { return tarEntries(archive, false)["index.html"] == "<h1>v2</h1>" })
	os.Remove(gz)
	p.Until("compressed file recreated", has("<h1>v2</h1>"))
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".mgmt-tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	stopApply(t, p)
}
