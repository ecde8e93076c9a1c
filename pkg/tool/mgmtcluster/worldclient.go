package mgmtcluster

import (
	"bytes"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/prometheus/common/expfmt"

	"github.com/mgmtpipe/mgmt/pkg/world"
	"github.com/mgmtpipe/mgmt/pkg/world/worldpipe"
)

// worldClientCmd holds the world's connection for the mgmt-apply that
// started it, serving it over stdin and stdout (pkg/world/worldpipe), so
// that mgmt-apply links no etcd client. It is not a command for people:
// the configuration comes over the pipe, and the command ends when the
// pipe does.
type worldClientCmd struct{}

func (worldClientCmd) run(e *env) error {
	// It ends when the pipe closes, after its parent's last requests
	// (withdrawing exports): not on a signal sent to the whole service
	// (a reload's SIGHUP, a stop's SIGTERM), nor on ^C.
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM)
	return worldpipe.Serve(e.stdin, protocolOut(e.stdout), worldpipe.ServeConfig{
		Open: func(c worldpipe.Config) (worldpipe.Backend, error) {
			l, err := world.Open(world.OpenConfig{Seeds: c.Seeds, Namespace: c.Namespace, Hostname: c.Hostname,
				Prefix: c.Prefix, TLS: world.NewTLSFiles(c.TLSCert, c.TLSKey, c.TLSCA), Logf: e.lg.Warnf})
			if err != nil {
				return nil, err
			}
			return served{l}, nil
		},
		Transient: world.Transient,
	})
}

// protocolOut returns where the protocol is written: stdout, which, when
// it is the process's standard output, moves to a descriptor of its own
// while descriptor 1 becomes a copy of stderr, so that nothing else the
// process may print there can break the protocol.
func protocolOut(stdout io.Writer) io.Writer {
	if f, ok := stdout.(*os.File); !ok || f != os.Stdout {
		return stdout
	}
	fd, err := syscall.Dup(1)
	if err != nil {
		return stdout
	}
	syscall.CloseOnExec(fd)
	if err := syscall.Dup3(2, 1, 0); err != nil {
		syscall.Close(fd)
		return stdout
	}
	return os.NewFile(uintptr(fd), "world-pipe")
}

// served is the world a world client serves: its metrics are those of
// the private member it runs, if any.
type served struct{ *world.Lazy }

func (s served) Metrics() ([]byte, error) {
	if !s.Member() {
		return nil, nil
	}
	mfs, err := world.EtcdMetrics().Gather()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}
