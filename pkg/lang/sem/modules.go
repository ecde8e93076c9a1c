package sem

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
)

// metadata is a module's metadata.yaml.
type metadata struct {
	Main    string `yaml:"main"`
	Path    string `yaml:"path"`
	Files   string `yaml:"files"`
	License string `yaml:"license"`
}

func readMetadata(dir string) metadata {
	md := metadata{}
	if data, err := os.ReadFile(filepath.Join(dir, "metadata.yaml")); err == nil {
		_ = yaml.Unmarshal(data, &md) // a broken or empty file means defaults
	}
	if md.Main == "" {
		md.Main = "main.mcl"
	}
	if md.Files == "" {
		md.Files = "files/"
	}
	return md
}

// remote returns the local directory of a remote module (git URL),
// cloning it into the module cache under the prefix when allowed.
func (l *loader) remote(url string) (string, error) {
	u := url
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	u = strings.TrimSuffix(u, "/")
	if strings.Contains(u, "..") {
		return "", fmt.Errorf("bad module URL %q", url)
	}
	base := l.prefix
	if base == "" {
		base = filepath.Join(os.TempDir(), "mgmt-modules")
	}
	dir := filepath.Join(base, "modules", u)
	if _, err := os.Stat(dir); err == nil {
		return dir, nil
	}
	if !l.download {
		return "", fmt.Errorf("module %s is not in the cache %s (use --download)", url, dir)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	src := url
	if strings.HasPrefix(src, "git://") && !strings.HasPrefix(src, "git://localhost") {
		src = "https://" + strings.TrimPrefix(src, "git://")
	}
	out, err := exec.Command("git", "clone", "--quiet", "--depth", "1", src, dir).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git clone %s: %v: %s", src, err, strings.TrimSpace(string(out)))
	}
	return dir, nil
}

func freshOr(p *ast.Param) *types.Type {
	if p.Type != nil {
		return p.Type
	}
	return types.NewVar()
}
