package resources

import (
	"fmt"
	"reflect"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// cmpParams compares the parameters (engine.ParamFields) of two
// resources, which must be of the same type, and names the first one that
// differs. An empty list or map equals an absent one.
func cmpParams(a, b engine.Res) error {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() || va.Kind() != reflect.Pointer {
		return fmt.Errorf("not a %T", a)
	}
	ea, eb := va.Elem(), vb.Elem()
	fields, err := engine.ParamFields(ea.Type())
	if err != nil {
		return err
	}
	for i := range fields {
		fa, fb := fields[i].Value(ea), fields[i].Value(eb)
		switch fa.Kind() {
		case reflect.Slice, reflect.Map:
			if fa.Len() == 0 && fb.Len() == 0 {
				continue
			}
		}
		if !reflect.DeepEqual(fa.Interface(), fb.Interface()) {
			return fmt.Errorf("%s differs", fields[i].Name)
		}
	}
	return nil
}
