package resources

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

func init() {
	engine.RegisterResource("json:edit", func() engine.Res { return &JSONEditRes{} })
}

// JSONEditRes applies edits to the JSON object stored in a file or in a
// string key of the world. See the package documentation.
type JSONEditRes struct {
	traits.Base
	traits.Edgeable

	init  *engine.Init
	world worldapi.StrWorld

	// Store is where the object lives: an absolute path, "file:///path"
	// or "etcd:///key"; it defaults to the resource name (a collected one
	// must equal it).
	Store string `lang:"store" yaml:"store" collect:"name"`
	// Edits are applied in order: ".a.b = VALUE" or "del(.a.b)".
	Edits []string `lang:"edits" yaml:"edits"`

	file, key string     // the parsed store: a file path or a world key
	edits     []jsonEdit // the parsed edits
}

// jsonKeyLocks serialises the edits of one world key within the process:
// map from the key to *sync.Mutex.
var jsonKeyLocks sync.Map

// Default returns a json:edit resource.
func (j *JSONEditRes) Default() engine.Res { return &JSONEditRes{} }

func (j *JSONEditRes) store() string {
	if j.Store != "" {
		return j.Store
	}
	return j.Name()
}

// Validate parses the store and the edits.
func (j *JSONEditRes) Validate() error {
	file, key, err := parseJSONStore(j.store())
	if err != nil {
		return err
	}
	if len(j.Edits) == 0 {
		return fmt.Errorf("edits is empty")
	}
	edits := make([]jsonEdit, len(j.Edits))
	for i, s := range j.Edits {
		e, err := parseJSONEdit(s)
		if err != nil {
			return fmt.Errorf("edits[%d] %q: %v", i, s, err)
		}
		edits[i] = e
	}
	j.file, j.key, j.edits = file, key, edits
	return nil
}

// parseJSONStore splits a store into a file path or a world key.
func parseJSONStore(s string) (file, key string, err error) {
	if strings.HasPrefix(s, "/") {
		return s, "", validEditPath("store", s, false)
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", "", fmt.Errorf("store %q: %v", s, err)
	}
	if u.Host != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" || u.ForceQuery {
		return "", "", fmt.Errorf("store %q: want file:///PATH or etcd:///KEY, with no host, query or fragment", s)
	}
	switch u.Scheme {
	case "file":
		return u.Path, "", validEditPath("store", u.Path, false)
	case "etcd":
		if key = strings.TrimPrefix(u.Path, "/"); key == "" {
			return "", "", fmt.Errorf("store %q names no key", s)
		}
		return "", key, nil
	}
	return "", "", fmt.Errorf("store %q: want an absolute path, file:///PATH or etcd:///KEY", s)
}

// Init finds the world for a store in it.
func (j *JSONEditRes) Init(init *engine.Init) error {
	j.init = init
	if j.edits == nil {
		if err := j.Validate(); err != nil {
			return err
		}
	}
	if j.key == "" {
		sweepBeside(j.file)
		return nil
	}
	w, ok := init.World.(worldapi.StrWorld)
	if !ok || init.World == nil {
		return fmt.Errorf("an etcd store needs the world: run with --seeds, or let the tool start its embedded one")
	}
	j.world = w
	return nil
}

// Cleanup does nothing.
func (j *JSONEditRes) Cleanup() error { return nil }

// Watch follows the file, or the world key.
func (j *JSONEditRes) Watch(ctx context.Context) error {
	if j.key == "" {
		return watchFiles(ctx, j.init, []string{j.file}, fswatch.Options{})
	}
	ch, err := j.world.StrWatch(ctx, j.key)
	if err != nil {
		return err
	}
	running := false
	for {
		select {
		case err, ok := <-ch:
			if !ok {
				return nil
			}
			if err != nil {
				j.init.Logf("world watch: %v (retrying)", err)
			}
			if !running {
				running = true
				j.init.Running()
				continue
			}
			j.init.Event()
		case <-ctx.Done():
			return nil
		}
	}
}

// CheckApply applies the edits to the stored object and writes it back
// when they changed its value.
func (j *JSONEditRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	if j.key == "" {
		// editFile serialises the edits of one file.
		ed, err := editFile(ctx, j.file, apply, nil, func(old []byte, _ bool) ([]byte, error) {
			return j.edit(old, j.file)
		})
		if err != nil || !ed.changed {
			return err == nil, err
		}
		reportChanges(j.init, ed.change("edited "+j.store()))
		return false, nil
	}
	changed, err := j.checkApplyWorld(ctx, apply)
	if err != nil {
		return false, err
	}
	if changed {
		reportChanges(j.init, engine.Change{What: "edited " + j.store()})
	}
	return !changed, nil
}

// checkApplyWorld edits the object in the world key; a missing key holds
// an empty object. The key is set without a comparison of what was read,
// so a concurrent writer of the same key on another host can be
// overwritten.
func (j *JSONEditRes) checkApplyWorld(ctx context.Context, apply bool) (bool, error) {
	mu, _ := jsonKeyLocks.LoadOrStore(j.key, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer mu.(*sync.Mutex).Unlock()
	old, ok, err := j.world.StrGet(ctx, j.key)
	if err != nil {
		return false, err
	}
	if !ok {
		old = "{}"
	}
	want, err := j.edit([]byte(old), "etcd key "+j.key)
	if err != nil {
		return false, err
	}
	if bytes.Equal(want, []byte(old)) {
		return false, nil
	}
	if !apply {
		return true, nil
	}
	return true, j.world.StrSet(ctx, j.key, string(want))
}

// edit decodes the object, applies the edits and returns old itself when
// the value did not change (formatting alone never rewrites), or the new
// object indented with tabs.
func (j *JSONEditRes) edit(old []byte, where string) ([]byte, error) {
	doc, err := decodeJSONObject(old)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	before, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	for i, e := range j.edits {
		if err := e.apply(doc); err != nil {
			return nil, fmt.Errorf("%s: edits[%d] %q: %v", where, i, j.Edits[i], err)
		}
	}
	after, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(before, after) {
		return old, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "\t")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeJSONObject decodes exactly one JSON object, keeping numbers as
// they are written.
func decodeJSONObject(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if err == io.EOF {
			return nil, fmt.Errorf("no JSON object (the store is empty)")
		}
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the JSON object")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("holds %s, not a JSON object", jsonKindName(v))
	}
	return m, nil
}

// jsonKindName names the JSON type of a decoded value.
func jsonKindName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}

// UIDs returns the resource's UID.
func (j *JSONEditRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: j.Kind(), Name: j.Name()}}
}

// AutoEdges makes an edit of a file wait for the file resources of the
// file and of the nearest directory above it.
func (j *JSONEditRes) AutoEdges() (engine.AutoEdge, error) {
	file, _, err := parseJSONStore(j.store())
	if err != nil || file == "" {
		return nil, nil
	}
	return fileAutoEdges(filepath.Clean(file)), nil
}

// Cmp compares two json:edit resources.
func (j *JSONEditRes) Cmp(r engine.Res) error {
	return cmpParams(j, r)
}
