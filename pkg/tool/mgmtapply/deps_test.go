package mgmtapply

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// TestNoEtcdInTheAgent fails when mgmt-apply links the etcd client,
// gRPC, protobuf or the Prometheus client: Go initialises every package a
// program contains at its start, so their pages would be resident in
// every run, world (or metrics) or not. The world is held by a child
// process (pkg/world/worldpipe); the resource kinds see it through
// pkg/world/worldapi; the metrics are served by internal/metrics.
func TestNoEtcdInTheAgent(t *testing.T) {
	out, err := exec.Command(runtime.GOROOT()+"/bin/go", "list", "-deps", "github.com/mgmtpipe/mgmt/cmd/mgmt-apply").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var bad []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "go.etcd.io/") || strings.HasPrefix(p, "google.golang.org/grpc") ||
			strings.HasPrefix(p, "google.golang.org/protobuf") || strings.HasPrefix(p, "github.com/prometheus/") {
			bad = append(bad, p)
		}
	}
	if len(bad) > 0 {
		t.Fatalf("mgmt-apply links %d packages of etcd, gRPC, protobuf or Prometheus, among them %s", len(bad), strings.Join(bad[:min(5, len(bad))], ", "))
	}
}
