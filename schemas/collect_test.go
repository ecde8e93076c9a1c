package schemas

import (
	"slices"
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// targetParams are parameter names that often say where a resource acts
// or what it reads: a kind with one of them must either declare a collect
// rule for it (graph.CollectRules) or appear in collectReviewed.
var targetParams = []string{"path", "file", "files", "dir", "directory", "store", "source", "fragments",
	"key", "namespace", "target", "dest", "destination", "input", "output", "device", "cwd", "user", "owner", "group", "title"}

// collectReviewed lists the target-like parameters that an exporter may
// set freely, with the reason (see pkg/resources' package doc).
var collectReviewed = map[string]string{
	"exec.cwd":               "the command can change directory itself",
	"exec.user":              "an exec runs as root by default: another user only lowers its rights",
	"exec.group":             "as user",
	"file.owner":             "the exporter's to say, like content and mode",
	"file.group":             "as owner",
	"user.group":             "the primary group of the user the collector named",
	"ssh:authorized_key.key": "the public key itself, not where it goes",
	"mount.device":           "what is mounted at the named mount point: the exporter's to say",
}

func TestCollectRulesReviewed(t *testing.T) {
	for kp := range collectReviewed {
		k, p, _ := strings.Cut(kp, ".")
		if s, ok := graph.LookupKind(k); !ok || s.Params[p] == "" {
			t.Errorf("collectReviewed names %s, which is not a parameter of a registered kind", kp)
		}
	}
	for _, k := range graph.Kinds() {
		s, _ := graph.LookupKind(k)
		if s.Collect.Refused {
			continue
		}
		for p := range s.Params {
			if !slices.Contains(targetParams, p) || slices.Contains(s.Collect.Name, p) || slices.Contains(s.Collect.Local, p) {
				continue
			}
			if _, ok := collectReviewed[k+"."+p]; !ok {
				t.Errorf("%s.%s may name where the resource acts: tag it collect:\"name\" or collect:\"local\", "+
					"or add it to collectReviewed with the reason an exporter may set it", k, p)
			}
		}
	}
}
