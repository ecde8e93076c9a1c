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
	schemas  = map[string]*kindEntry{}
)

// A kindEntry is a registered kind, whose schema is made on its first
// look-up: a program that starts and reads a graph of a few kinds does not
// pay, on every start, for the schemas of all of them (about 0.7 ms of
// reflection over some thirty kinds' fields).
type kindEntry struct {
	once   sync.Once
	make   func() *KindSchema
	s      *KindSchema
	failed any // what make panicked with, panicked with again on every look-up
}

// RegisterKind adds the schema of a resource kind; registering a kind
// twice panics. The schema must not change once registered.
func RegisterKind(s *KindSchema) {
	RegisterKindFunc(s.Kind, func() *KindSchema { return s })
}

// RegisterKindFunc adds a resource kind whose schema make returns on the
// first look-up of the kind (pkg/engine registers every resource kind so);
// registering a kind twice panics. make must return a schema of the kind,
// the same on every call; it panics on a kind it cannot describe (a
// program error, which a test that looks up every kind finds).
func RegisterKindFunc(kind string, make func() *KindSchema) {
	schemaMu.Lock()
	defer schemaMu.Unlock()
	if _, dup := schemas[kind]; dup {
		panic(fmt.Sprintf("graph: kind %q registered twice", kind))
	}
	schemas[kind] = &kindEntry{make: make}
}

// LookupKind returns the schema of kind, if one is registered.
func LookupKind(kind string) (*KindSchema, bool) {
	schemaMu.RLock()
	e, ok := schemas[kind]
	schemaMu.RUnlock()
	if !ok {
		return nil, false
	}
	e.once.Do(func() {
		defer func() {
			if r := recover(); r != nil {
				e.failed = r
			}
		}()
		s := e.make()
		if s == nil || s.Kind != kind {
			panic(fmt.Sprintf("graph: the schema made for kind %q is not one of it", kind))
		}
		if len(s.Params) > 0 {
			s.types = make(map[string]*mclType, len(s.Params))
			for k, typ := range s.Params {
				s.types[k], _ = parseMclType(typ)
			}
		}
		e.s = s
	})
	if e.failed != nil {
		panic(e.failed)
	}
	return e.s, true
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
