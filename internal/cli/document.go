package cli

import (
	"fmt"
	"io"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// maxDocumentMiBLimit bounds --max-document-mib (1 TiB), far above any
// memory, so that the size in bytes cannot overflow.
const maxDocumentMiBLimit = 1 << 20

// DocumentFlags are the flags of the tools that read graph documents
// (mgmt-apply, graph-merge).
type DocumentFlags struct {
	MaxDocumentMiB int `name:"max-document-mib" help:"Refuse a graph document larger than this many MiB: it is read to its end without being kept, reported at its start, and the next document is read (the engine keeps its graph)." default:"256" placeholder:"MIB"`
}

// Check reports a --max-document-mib out of range.
func (f DocumentFlags) Check() error {
	if f.MaxDocumentMiB < 1 || f.MaxDocumentMiB > maxDocumentMiBLimit {
		return fmt.Errorf("--max-document-mib %d: want 1 to %d", f.MaxDocumentMiB, maxDocumentMiBLimit)
	}
	return nil
}

// NewDecoder returns the graph decoder of r (named name in positions)
// that takes documents up to --max-document-mib.
func (f DocumentFlags) NewDecoder(r io.Reader, name string) *graph.Decoder {
	d := graph.NewDecoder(r, name)
	d.SetMaxDocument(f.MaxDocumentMiB << 20)
	return d
}
