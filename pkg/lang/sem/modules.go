package sem

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mgmtpipe/mgmt/internal/bounded"
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

var yamlLine = regexp.MustCompile(`^line (\d+): `)

// readMetadata reads dir's metadata.yaml: defaults when there is none or
// it is empty; an error when it cannot be read or parsed, rather than a
// module whose entry file the file did not mean.
func readMetadata(dir string) (metadata, error) {
	md := metadata{}
	path := filepath.Join(dir, "metadata.yaml")
	data, err := bounded.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return md, err
	default:
		if err := yaml.Unmarshal(data, &md); err != nil {
			msg, line := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "yaml: "), "unmarshal errors:\n  "), 1
			if m := yamlLine.FindStringSubmatch(msg); m != nil {
				line, _ = strconv.Atoi(m[1])
				msg = msg[len(m[0]):]
			}
			return md, errAt(ast.Pos{File: path, Line: line, Col: 1}, StageScope, "%s", msg)
		}
	}
	if md.Main == "" {
		md.Main = "main.mcl"
	}
	if md.Files == "" {
		md.Files = "files/"
	}
	return md, nil
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
