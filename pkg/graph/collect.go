package graph

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
)

// CollectRules say what a host that collects a resource of a kind from the
// world accepts from the exporting host. The collecting host chose the
// resource by kind and name; these rules keep the exporter from making it
// act on something else. Kinds declare them (pkg/engine reads the
// `collect` struct tags and the Collectable trait); CheckCollected applies
// them.
type CollectRules struct {
	// Refused means the kind cannot be collected at all: its parameters
	// can name any target (pippet hands a whole Puppet resource over).
	Refused bool
	// Name lists the parameters that name the resource's target apart
	// from its name (file path, kv key): when an exporter sets one, it
	// must equal the name.
	Name []string
	// Local lists the parameters that only the collecting host may set
	// (in the body of its collect statement): they read the collecting
	// host's own files or make the resource stand for another object
	// (file source, user allowduplicateuid). An exporter may leave them
	// unset or at their zero value.
	Local []string
}

// CheckCollected reports why r, a resource another host exported, must
// not be applied by the host collecting it: r.Kind and r.Name are the ones
// the collecting host selected, and r.Params are the exporter's. Kinds
// without a registered schema have no rules. The error names the
// parameter, not the resource or the exporter: the caller knows those.
func CheckCollected(r *Resource) error {
	s, ok := LookupKind(r.Kind)
	if !ok {
		return nil
	}
	if s.Collect.Refused {
		return fmt.Errorf("kind %s cannot be collected", r.Kind)
	}
	for _, p := range slices.Sorted(maps.Keys(r.Params)) {
		v := r.Params[p]
		if slices.Contains(s.Collect.Name, p) && !isZeroJSON(v) {
			if str, ok := v.(string); !ok || str != r.Name {
				return fmt.Errorf("parameter %s %s differs from the name", p, jsonText(v))
			}
		}
		if slices.Contains(s.Collect.Local, p) && !isZeroJSON(v) {
			return fmt.Errorf("parameter %s (%s) may be set only by the collecting host", p, jsonText(v))
		}
	}
	return nil
}

// isZeroJSON reports whether v, a decoded JSON value, is null or the zero
// value of its type: the engine treats such a parameter as unset.
func isZeroJSON(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case json.Number:
		f, err := v.Float64()
		return err == nil && f == 0
	case string, bool, float64, int, int64:
		return reflect.ValueOf(v).IsZero()
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// jsonText renders v for an error message, cut to a readable length.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}
