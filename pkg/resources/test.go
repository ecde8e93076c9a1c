package resources

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("test", func() engine.Res { return &TestRes{} })
}

// TestRes is a harmless resource with a parameter of (nearly) every Go type
// mcl can express, for the tests of the compilers and of the engine.
type TestRes struct {
	traits.Base
	traits.Groupable
	traits.Refreshable
	traits.Sendable
	traits.Recvable

	init *engine.Init

	// Bool is a parameter of Go type bool.
	Bool bool `lang:"bool" yaml:"bool"`
	// Str is a parameter of Go type string.
	Str string `lang:"str" yaml:"str"`

	// Int is a parameter of Go type int.
	Int int `lang:"int" yaml:"int"`
	// Int8 is a parameter of Go type int8.
	Int8 int8 `lang:"int8" yaml:"int8"`
	// Int16 is a parameter of Go type int16.
	Int16 int16 `lang:"int16" yaml:"int16"`
	// Int32 is a parameter of Go type int32.
	Int32 int32 `lang:"int32" yaml:"int32"`
	// Int64 is a parameter of Go type int64.
	Int64 int64 `lang:"int64" yaml:"int64"`

	// Uint is a parameter of Go type uint.
	Uint uint `lang:"uint" yaml:"uint"`
	// Uint8 is a parameter of Go type uint8.
	Uint8 uint8 `lang:"uint8" yaml:"uint8"`
	// Uint16 is a parameter of Go type uint16.
	Uint16 uint16 `lang:"uint16" yaml:"uint16"`
	// Uint32 is a parameter of Go type uint32.
	Uint32 uint32 `lang:"uint32" yaml:"uint32"`
	// Uint64 is a parameter of Go type uint64.
	Uint64 uint64 `lang:"uint64" yaml:"uint64"`

	// Byte is a parameter of Go type byte.
	Byte byte `lang:"byte" yaml:"byte"`
	// Rune is a parameter of Go type rune.
	Rune rune `lang:"rune" yaml:"rune"`

	// Float32 is a parameter of Go type float32.
	Float32 float32 `lang:"float32" yaml:"float32"`
	// Float64 is a parameter of Go type float64.
	Float64 float64 `lang:"float64" yaml:"float64"`

	// BoolPtr is a parameter of Go type *bool.
	BoolPtr *bool `lang:"boolptr" yaml:"boolptr"`
	// StringPtr is a parameter of Go type *string.
	StringPtr *string `lang:"stringptr" yaml:"stringptr"`
	// Int64Ptr is a parameter of Go type *int64.
	Int64Ptr *int64 `lang:"int64ptr" yaml:"int64ptr"`
	// Int8Ptr is a parameter of Go type *int8.
	Int8Ptr *int8 `lang:"int8ptr" yaml:"int8ptr"`
	// Uint8Ptr is a parameter of Go type *uint8.
	Uint8Ptr *uint8 `lang:"uint8ptr" yaml:"uint8ptr"`
	// Int8PtrPtrPtr is a parameter of Go type ***int8.
	Int8PtrPtrPtr ***int8 `lang:"int8ptrptrptr" yaml:"int8ptrptrptr"`

	// SliceString is a parameter of Go type []string.
	SliceString []string `lang:"slicestring" yaml:"slicestring"`
	// MapIntFloat is a parameter of Go type map[int64]float64.
	MapIntFloat map[int64]float64 `lang:"mapintfloat" yaml:"mapintfloat"`
	// MixedStruct is a parameter of Go type TestMixed.
	MixedStruct TestMixed `lang:"mixedstruct" yaml:"mixedstruct"`

	// AnotherStr is a parameter of Go type string.
	AnotherStr string `lang:"anotherstr" yaml:"anotherstr"`

	// ValidateBool makes Validate fail.
	ValidateBool bool `lang:"validatebool" yaml:"validatebool"`
	// ValidateError makes Validate fail with this message.
	ValidateError string `lang:"validateerror" yaml:"validateerror"`
	// AlwaysGroup lets two test resources group whatever their params.
	AlwaysGroup bool `lang:"alwaysgroup" yaml:"alwaysgroup"`
	// CompareFail makes Cmp always report a difference.
	CompareFail bool `lang:"comparefail" yaml:"comparefail"`
	// SendValue is sent as the "hello" key.
	SendValue string `lang:"sendvalue" yaml:"sendvalue"`
	// ExpectRecv, when set, lists exactly the keys that must be received;
	// CheckApply fails otherwise.
	ExpectRecv *[]string `lang:"expectrecv" yaml:"expectrecv"`
	// OnlyShow limits the parameters logged by CheckApply.
	OnlyShow []string `lang:"onlyshow" yaml:"onlyshow"`
}

// TestMixed is the struct parameter of the test resource.
type TestMixed struct {
	SomeBool  bool    `lang:"somebool" yaml:"somebool"`
	SomeStr   string  `lang:"somestr" yaml:"somestr"`
	SomeInt   int64   `lang:"someint" yaml:"someint"`
	SomeFloat float64 `lang:"somefloat" yaml:"somefloat"`
}

// TestSends is what a test resource sends.
type TestSends struct {
	// Hello is the sendvalue parameter.
	Hello *string `lang:"hello"`
	// Answer is always 42.
	Answer int `lang:"answer"`
}

// Default returns a test resource.
func (obj *TestRes) Default() engine.Res { return &TestRes{} }

// Validate fails only when asked to.
func (obj *TestRes) Validate() error {
	if obj.ValidateBool {
		return fmt.Errorf("the validatebool param was set to true")
	}
	if obj.ValidateError != "" {
		return fmt.Errorf("the validateerror param was set to: %s", obj.ValidateError)
	}
	return nil
}

// Init keeps the handle.
func (obj *TestRes) Init(init *engine.Init) error {
	obj.init = init
	return nil
}

// Cleanup does nothing.
func (obj *TestRes) Cleanup() error { return nil }

// Sends returns the keys test sends.
func (obj *TestRes) Sends() any { return &TestSends{} }

// Watch has nothing to follow: a test resource has no state that could
// drift.
func (obj *TestRes) Watch(ctx context.Context) error {
	obj.init.Running()
	<-ctx.Done()
	return nil
}

// CheckApply checks the received keys, sends its values and finds the
// state right.
func (obj *TestRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	if obj.init == nil {
		return true, nil
	}
	if obj.ExpectRecv != nil {
		var got []string
		for k := range obj.init.Recv() {
			got = append(got, k)
		}
		want := append([]string(nil), (*obj.ExpectRecv)...)
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, ",") != strings.Join(want, ",") {
			return false, fmt.Errorf("received keys [%s], want [%s]", strings.Join(got, ", "), strings.Join(want, ", "))
		}
	}
	v := obj.SendValue
	if err := obj.init.Send(&TestSends{Hello: &v, Answer: 42}); err != nil {
		return false, err
	}
	if obj.init.Debug {
		for _, k := range obj.OnlyShow {
			if v, ok := obj.param(k); ok {
				obj.init.Logf("%s: %v", k, v)
			}
		}
	}
	return true, nil
}

// param returns the value of the parameter named k.
func (obj *TestRes) param(k string) (any, bool) {
	v := reflect.ValueOf(obj).Elem()
	fields, _ := engine.ParamFields(v.Type())
	for i := range fields {
		if fields[i].Name == k {
			f := fields[i].Value(v)
			for f.Kind() == reflect.Pointer && !f.IsNil() {
				f = f.Elem()
			}
			return f.Interface(), true
		}
	}
	return nil, false
}

// Cmp compares every parameter.
func (obj *TestRes) Cmp(r engine.Res) error {
	res, ok := r.(*TestRes)
	if !ok {
		return fmt.Errorf("not a %T", obj)
	}
	if obj.CompareFail || res.CompareFail {
		return fmt.Errorf("the comparefail param is set")
	}
	return obj.cmpParams(res)
}

func (obj *TestRes) cmpParams(res *TestRes) error {
	a, b := reflect.ValueOf(obj).Elem(), reflect.ValueOf(res).Elem()
	fields, _ := engine.ParamFields(a.Type())
	for i := range fields {
		if !reflect.DeepEqual(fields[i].Value(a).Interface(), fields[i].Value(b).Interface()) {
			return fmt.Errorf("the %s param differs", fields[i].Name)
		}
	}
	return nil
}

// GroupCmp accepts another test resource with the same params, or any
// other one when both set alwaysgroup.
func (obj *TestRes) GroupCmp(r engine.Groupable) error {
	res, ok := r.(*TestRes)
	if !ok {
		return fmt.Errorf("not a %T", obj)
	}
	if obj.AlwaysGroup && res.AlwaysGroup {
		return nil
	}
	return obj.cmpParams(res)
}

// GroupRes adds r to the group.
func (obj *TestRes) GroupRes(r engine.Groupable) error {
	if err := obj.GroupCmp(r); err != nil {
		return err
	}
	r.SetGrouped(true)
	obj.SetGroup(append(obj.GetGroup(), r))
	return nil
}
