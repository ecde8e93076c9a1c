package resources

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/mgmtpipe/mgmt/internal/fswatch"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("fwattr", func() engine.Res { return &FwattrRes{Check: true} })
}

// fwattrClass is where the kernel publishes firmware attributes, below the
// sysfs root.
const fwattrClass = "class/firmware-attributes"

// FwattrRes keeps one firmware (BIOS/UEFI setup) attribute that the kernel
// publishes under /sys/class/firmware-attributes at a value. See the
// package documentation.
type FwattrRes struct {
	traits.Base

	init *engine.Init

	// Driver is the directory of the firmware-attributes driver
	// (thinklmi, dell-wmi-sysman, ...); empty picks the only one there
	// is.
	Driver string `lang:"driver" yaml:"driver" collect:"local"`
	// Key is the attribute; it defaults to the name.
	Key string `lang:"key" yaml:"key" collect:"name"`
	// Value is the wanted value.
	Value string `lang:"value" yaml:"value"`
	// Check validates the value against what the attribute accepts.
	Check bool `lang:"check" yaml:"check"`
	// Strict turns off the alias table (Enabled for Enable, ...).
	Strict bool `lang:"strict" yaml:"strict"`
	// Skip makes the resource do nothing, with a warning, on a host
	// without the attribute.
	Skip bool `lang:"skip" yaml:"skip"`

	// Root is the sysfs mount point, "/sys" when empty. Tests point it at
	// a stand-in tree; it is not a parameter.
	Root string `yaml:"-"`
}

// Default returns a fwattr resource with its defaults.
func (r *FwattrRes) Default() engine.Res { return &FwattrRes{Check: true} }

func (r *FwattrRes) key() string {
	if r.Key != "" {
		return r.Key
	}
	return r.Name()
}

// validFwattrPart checks one path component taken from the parameters.
func validFwattrPart(what, s string) error {
	if s == "" || s == "." || s == ".." || strings.ContainsAny(s, "/\x00\n") {
		return fmt.Errorf("%s %q is not a single sysfs file name", what, s)
	}
	return nil
}

// Validate checks the key, the driver and the value.
func (r *FwattrRes) Validate() error {
	if err := validFwattrPart("key", r.key()); err != nil {
		return err
	}
	if r.Driver != "" {
		if err := validFwattrPart("driver", r.Driver); err != nil {
			return err
		}
	}
	if strings.ContainsAny(r.Value, "\n\x00") {
		return fmt.Errorf("value %q holds a newline or NUL", r.Value)
	}
	return nil
}

// Init keeps the handle.
func (r *FwattrRes) Init(init *engine.Init) error {
	r.init = init
	return nil
}

// Cleanup does nothing.
func (r *FwattrRes) Cleanup() error { return nil }

func (r *FwattrRes) classDir() string {
	root := r.Root
	if root == "" {
		root = "/sys"
	}
	return filepath.Join(root, fwattrClass)
}

// errFwattrMissing reports an attribute (or the whole class) that this
// host does not have.
var errFwattrMissing = errors.New("not on this host")

// attrDir finds the directory of the attribute: the driver named, or the
// only driver there is.
func (r *FwattrRes) attrDir() (string, error) {
	class := r.classDir()
	driver := r.Driver
	if driver == "" {
		ents, err := os.ReadDir(class)
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", class, errFwattrMissing)
		}
		if err != nil {
			return "", err
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		if len(names) != 1 {
			return "", fmt.Errorf("%s holds %d drivers %q: name one with driver", class, len(names), names)
		}
		driver = names[0]
	}
	dir := filepath.Join(class, driver, "attributes", r.key())
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("attribute %s: %w", dir, errFwattrMissing)
	} else if err != nil {
		return "", err
	}
	return dir, nil
}

// Watch follows current_value: a write to it (by a tool or by hand) is
// seen, a change the firmware makes by itself is not.
func (r *FwattrRes) Watch(ctx context.Context) error {
	dir, err := r.attrDir()
	if r.Skip && errors.Is(err, errFwattrMissing) {
		r.init.Running()
		<-ctx.Done()
		return nil
	}
	if err != nil {
		return err
	}
	return watchFiles(ctx, r.init, []string{filepath.Join(dir, "current_value")}, fswatch.Options{})
}

// readAttrFile reads one metadata file of the attribute without its final
// newline; a missing file reads as ok false.
func readAttrFile(dir, name string) (string, bool, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return strings.TrimSuffix(string(b), "\n"), true, nil
}

// fwattrAliases maps a spelling to the one some drivers use (thinklmi
// says Enable where others say Enabled).
var fwattrAliases = map[string]string{
	"Enabled": "Enable", "Enable": "Enabled",
	"Disabled": "Disable", "Disable": "Disabled",
}

// wanted returns the value to write: the value, or (unless strict) its
// alias when only that is among an enumeration's possible values. With
// check, a value the attribute does not accept is an error.
func (r *FwattrRes) wanted(dir string) (string, error) {
	typ, _, err := readAttrFile(dir, "type")
	if err != nil || !r.Check && typ != "enumeration" {
		return r.Value, err
	}
	switch typ {
	case "enumeration":
		return r.enumValue(dir)
	case "integer":
		return r.Value, r.checkInteger(dir)
	case "string":
		return r.Value, r.checkLength(dir)
	case "":
		return r.Value, nil
	}
	return "", fmt.Errorf("attribute %s has type %q, which fwattr cannot check (set check to false)", filepath.Base(dir), typ)
}

func (r *FwattrRes) enumValue(dir string) (string, error) {
	pv, ok, err := readAttrFile(dir, "possible_values")
	if err != nil || !ok {
		return r.Value, err
	}
	possible := strings.Split(pv, ";")
	if slices.Contains(possible, r.Value) {
		return r.Value, nil
	}
	if a, ok := fwattrAliases[r.Value]; ok && !r.Strict && slices.Contains(possible, a) {
		return a, nil
	}
	if !r.Check {
		return r.Value, nil
	}
	return "", fmt.Errorf("value %q is not one of %s's possible values %q", r.Value, filepath.Base(dir), possible)
}

// attrInt reads an integer metadata file; a missing one reads as ok false.
func attrInt(dir, name string) (int64, bool, error) {
	s, ok, err := readAttrFile(dir, name)
	if err != nil || !ok {
		return 0, false, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %v", filepath.Join(dir, name), err)
	}
	return n, true, nil
}

func (r *FwattrRes) checkInteger(dir string) error {
	v, err := strconv.ParseInt(r.Value, 10, 64)
	if err != nil {
		return fmt.Errorf("value %q of the integer attribute %s is not an integer", r.Value, filepath.Base(dir))
	}
	lo, hasLo, err := attrInt(dir, "min_value")
	if err != nil {
		return err
	}
	hi, hasHi, err := attrInt(dir, "max_value")
	if err != nil {
		return err
	}
	step, hasStep, err := attrInt(dir, "scalar_increment")
	if err != nil {
		return err
	}
	switch {
	case hasLo && v < lo, hasHi && v > hi:
		return fmt.Errorf("value %d is out of %s's range [%d, %d]", v, filepath.Base(dir), lo, hi)
	case hasStep && step > 0 && (v-lo)%step != 0:
		return fmt.Errorf("value %d is not %d plus a multiple of %d", v, lo, step)
	}
	return nil
}

func (r *FwattrRes) checkLength(dir string) error {
	lo, hasLo, err := attrInt(dir, "min_length")
	if err != nil {
		return err
	}
	hi, hasHi, err := attrInt(dir, "max_length")
	if err != nil {
		return err
	}
	n := int64(len(r.Value))
	if hasLo && n < lo || hasHi && n > hi {
		return fmt.Errorf("value %q has %d bytes, want %d to %d", r.Value, n, lo, hi)
	}
	return nil
}

// CheckApply compares current_value with the wanted value and writes it.
func (r *FwattrRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	dir, err := r.attrDir()
	if r.Skip && errors.Is(err, errFwattrMissing) {
		r.logf("warning: skipped: %v", err)
		return true, nil
	}
	if err != nil {
		return false, err
	}
	want, err := r.wanted(dir)
	if err != nil {
		return false, err
	}
	file := filepath.Join(dir, "current_value")
	have, ok, err := readAttrFile(dir, "current_value")
	if err != nil {
		return false, err
	}
	if !ok {
		return false, fmt.Errorf("%s does not exist", file)
	}
	if have == want {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_TRUNC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false, err
	}
	_, err = f.WriteString(want + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, fmt.Errorf("setting %s to %q: %v", r.key(), want, bareErr(err))
	}
	r.logf("%s: %q -> %q", r.key(), have, want)
	return false, nil
}

func (r *FwattrRes) logf(format string, v ...any) {
	if r.init != nil {
		r.init.Logf(format, v...)
	}
}

// Cmp compares two fwattr resources.
func (r *FwattrRes) Cmp(o engine.Res) error {
	if err := cmpParams(r, o); err != nil {
		return err
	}
	if r.Root != o.(*FwattrRes).Root {
		return fmt.Errorf("sysfs root differs")
	}
	return nil
}
