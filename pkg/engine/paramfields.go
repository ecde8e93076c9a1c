package engine

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// A ParamField is one parameter of a kind: a field with a `lang` tag of
// the kind's struct, or of a struct that an inline field of it holds.
//
// A field tagged `lang:",inline"`, of a struct type or a pointer to one,
// is no parameter itself: the parameters of the struct it holds are the
// kind's own, with the same names, types, docs, collect and adapt tags,
// decoded, encoded, compared, sent and received as if the kind declared
// them. A kind keeps the parameters most of its resources leave unset
// behind such a pointer, so that a resource that sets none of them holds
// one nil pointer instead of all their zero values; a nil pointer reads
// as the zero value of each of its parameters, and decoding makes the
// struct only when a value other than the zero value is given.
type ParamField struct {
	// Name is the parameter's name: the field's `lang` tag.
	Name string
	// Field is the struct field, as its own struct (Owner) declares it.
	Field reflect.StructField
	// Owner is the struct type that declares the field: the kind's, or
	// that of an inline field.
	Owner reflect.Type
	// path holds the indexes from the kind's struct to the field: those
	// of the inline fields on the way, then the field's own.
	path []int
}

// A paramSet is the parameters of one struct type, as ParamFields finds
// them.
type paramSet struct {
	list []ParamField
	// byName maps the `lang` names, and the `yaml` names that differ
	// from every `lang` name, to the fields of list.
	byName map[string]*ParamField
	err    error
}

var paramSets sync.Map // reflect.Type -> *paramSet

// ParamFields returns the parameter fields of the struct type t (or of
// the struct a pointer type t points to), in the order of their
// declaration, those of an inline field in its place. The result is
// shared: do not modify it. The error reports a misused tag: an inline
// field that holds no struct, a struct that holds itself inline, a `lang`
// tag on an unexported field, a `collect` or `adapt` tag without a `lang`
// tag, or two fields with one name.
func ParamFields(t reflect.Type) ([]ParamField, error) {
	s := paramsOf(t)
	return s.list, s.err
}

func paramsOf(t reflect.Type) *paramSet {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := paramSets.Load(t); ok {
		return s.(*paramSet)
	}
	s := &paramSet{byName: map[string]*ParamField{}}
	if t.Kind() != reflect.Struct {
		s.err = fmt.Errorf("got %s, want a struct", t)
	} else {
		s.err = s.add(t, nil, map[reflect.Type]bool{})
	}
	if s.err == nil {
		s.index(t)
	}
	v, _ := paramSets.LoadOrStore(t, s)
	return v.(*paramSet)
}

// add appends the parameters of struct type t, reached through the
// inline fields at path, to s.list.
func (s *paramSet) add(t reflect.Type, path []int, on map[reflect.Type]bool) error {
	if on[t] {
		return fmt.Errorf("%s holds itself inline", t)
	}
	on[t] = true
	defer delete(on, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, opts, _ := strings.Cut(f.Tag.Get("lang"), ",")
		if tag == "" && opts == "inline" {
			if !f.IsExported() {
				return fmt.Errorf("field %s: an inline field must be exported", f.Name)
			}
			inner := f.Type
			if inner.Kind() == reflect.Pointer {
				inner = inner.Elem()
			}
			if inner.Kind() != reflect.Struct {
				return fmt.Errorf("field %s: an inline field holds a struct or a pointer to one, not a %s", f.Name, f.Type)
			}
			if err := s.add(inner, append(path[:len(path):len(path)], i), on); err != nil {
				return err
			}
			continue
		}
		if tag == "" || tag == "-" {
			for _, k := range []string{"collect", "adapt"} {
				if _, ok := f.Tag.Lookup(k); ok {
					return fmt.Errorf("field %s: a %s tag needs a lang tag", f.Name, k)
				}
			}
			continue
		}
		if !f.IsExported() {
			return fmt.Errorf("field %s: a lang tag on an unexported field", f.Name)
		}
		for _, p := range s.list {
			if p.Name == tag {
				return fmt.Errorf("fields %s and %s are both parameter %s", p.Field.Name, f.Name, tag)
			}
		}
		s.list = append(s.list, ParamField{Name: tag, Field: f, Owner: t, path: append(path[:len(path):len(path)], i)})
	}
	return nil
}

// index fills s.byName.
func (s *paramSet) index(t reflect.Type) {
	for i := range s.list {
		s.byName[s.list[i].Name] = &s.list[i]
	}
	for i := range s.list {
		yml, _, _ := strings.Cut(s.list[i].Field.Tag.Get("yaml"), ",")
		if yml == "" || yml == "-" {
			continue
		}
		if _, dup := s.byName[yml]; !dup {
			s.byName[yml] = &s.list[i]
		}
	}
}

// Value returns the field in sv, a value of the struct type the field was
// found in, for reading: the zero value of the field's type (which cannot
// be set) when an inline pointer on the way is nil.
func (f *ParamField) Value(sv reflect.Value) reflect.Value {
	v, ok := f.reach(sv, false)
	if !ok {
		return reflect.Zero(f.Field.Type)
	}
	return v
}

// Settable returns the field in sv, an addressable value of the struct
// type the field was found in, making the structs of the nil inline
// pointers on the way.
func (f *ParamField) Settable(sv reflect.Value) reflect.Value {
	v, _ := f.reach(sv, true)
	return v
}

// reach walks f.path from sv; through a nil inline pointer it makes the
// struct with alloc, and stops (false) without.
func (f *ParamField) reach(sv reflect.Value, alloc bool) (reflect.Value, bool) {
	v := sv
	for i, x := range f.path {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !alloc {
					return reflect.Value{}, false
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

// decode sets the field in sv, an addressable value of its struct type,
// from the decoded value v (see DecodeParams). A nil inline pointer on
// the way is made only when the value is not the zero value of the
// field's type: a nil pointer reads as that already.
func (f *ParamField) decode(sv reflect.Value, v any) error {
	if dst, ok := f.reach(sv, false); ok {
		return assign(dst, v)
	}
	tmp := reflect.New(f.Field.Type).Elem()
	if err := assign(tmp, v); err != nil {
		return err
	}
	if !tmp.IsZero() {
		f.Settable(sv).Set(tmp)
	}
	return nil
}
