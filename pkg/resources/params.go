package resources

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// cmpParams compares the parameters (the `lang`-tagged fields) of two
// resources, which must be of the same type, and names the first one that
// differs. An empty list or map equals an absent one.
func cmpParams(a, b engine.Res) error {
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Type() != vb.Type() || va.Kind() != reflect.Pointer {
		return fmt.Errorf("not a %T", a)
	}
	ea, eb := va.Elem(), vb.Elem()
	t := ea.Type()
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("lang"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		fa, fb := ea.Field(i), eb.Field(i)
		switch fa.Kind() {
		case reflect.Slice, reflect.Map:
			if fa.Len() == 0 && fb.Len() == 0 {
				continue
			}
		}
		if !reflect.DeepEqual(fa.Interface(), fb.Interface()) {
			return fmt.Errorf("%s differs", tag)
		}
	}
	return nil
}
