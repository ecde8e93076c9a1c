package graph

import (
	"fmt"
	"sort"
	"sync"
)

// A KindSchema describes the parameters of one resource kind. Types are
// written in mcl type syntax ("str", "int", "bool", "float", "[]str",
// "map{str: int}", "struct{a str; b int}"), which pkg/lang parses as it is
// and which Validate uses to check JSON values.
type KindSchema struct {
	Kind   string            // lower case, may contain ':'
	Params map[string]string // parameter name (as mcl spells it) -> type
	Sends  map[string]string // keys the kind can send -> type; nil if not Sendable
	Recv   bool              // whether the kind can receive values (Recvable)
	// Collect is what a collecting host accepts from an exporter.
	Collect CollectRules
	// Consts names values of parameters: parameter -> value name ->
	// value (int64 or string, of the parameter's type).
	Consts map[string]map[string]any
	// Adapt are the parameters in which two declarations of one resource
	// may differ and still merge (see MergeDuplicate).
	Adapt []AdaptRule
	// Retired are parameters the kind no longer has, each with what to
	// use instead. Upstream's graph.yaml examples still carry some (exec
	// pollint and state): the YAML decoder leaves them out of the document
	// with a warning, where any other unknown parameter is an error.
	Retired map[string]string

	// types are the parsed types of Params (nil for one that does not
	// parse), made when the schema is registered, so that checking a
	// resource does not parse its parameters' types again.
	types map[string]*mclType
}

// paramType returns the parsed type of parameter k and whether the kind
// has the parameter; the type is nil when it does not parse.
func (s *KindSchema) paramType(k string) (*mclType, bool) {
	if s.types != nil {
		t, ok := s.types[k]
		return t, ok
	}
	typ, ok := s.Params[k]
	if !ok {
		return nil, false
	}
	t, _ := parseMclType(typ)
	return t, true
}

var (
	schemaMu sync.RWMutex
	schemas  = map[string]*KindSchema{}
)

// RegisterKind adds the schema of a resource kind. pkg/engine calls it for
// every registered resource; registering a kind twice panics. The schema
// must not change once registered.
func RegisterKind(s *KindSchema) {
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if _, dup := schemas[s.Kind]; dup {
		panic(fmt.Sprintf("graph: kind %q registered twice", s.Kind))
	}
	if len(s.Params) > 0 {
		s.types = make(map[string]*mclType, len(s.Params))
		for k, typ := range s.Params {
			s.types[k], _ = parseMclType(typ)
		}
	}
	schemas[s.Kind] = s
}

// LookupKind returns the schema of kind, if one is registered.
func LookupKind(kind string) (*KindSchema, bool) {
	schemaMu.RLock()
	defer schemaMu.RUnlock()
	s, ok := schemas[kind]
	return s, ok
}

// Kinds returns the registered kinds in sorted order.
func Kinds() []string {
	schemaMu.RLock()
	defer schemaMu.RUnlock()
	out := make([]string, 0, len(schemas))
	for k := range schemas {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// UnknownKind returns the message for a resource of a kind that is not
// among kinds (the registered ones), with the closest one suggested.
func UnknownKind(kind string, kinds []string) string {
	return fmt.Sprintf("unknown resource kind %q%s", kind, Suggest(kind, kinds))
}
