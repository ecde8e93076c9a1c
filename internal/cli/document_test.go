package cli

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/graph"
)

// The flag's default is the decoder's.
func TestMaxDocumentDefault(t *testing.T) {
	f, _ := reflect.TypeOf(DocumentFlags{}).FieldByName("MaxDocumentMiB")
	if d, err := strconv.Atoi(f.Tag.Get("default")); err != nil || d<<20 != graph.DefaultMaxDocument {
		t.Errorf("--max-document-mib defaults to %q, the decoder to %d bytes", f.Tag.Get("default"), graph.DefaultMaxDocument)
	}
}
