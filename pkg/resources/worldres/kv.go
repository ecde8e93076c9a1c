// Package worldres holds the resources that act on the shared world (see
// pkg/world): kv stores a string under a key, optionally per host, and
// schedule makes this host volunteer for a namespace of the scheduler. Both
// need the engine's Init.World; without one, Init fails with a clear error.
package worldres

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

func init() {
	engine.RegisterResource("kv", func() engine.Res { return &KVRes{} })
	engine.RegisterResource("schedule", func() engine.Res { return &ScheduleRes{} })
}

// Comparison styles of KVRes.SkipCmpStyle.
const (
	SkipCmpInt    = "int"    // compare as integers (the default)
	SkipCmpString = "string" // compare as strings
)

// kvWorld is what the kv resource needs from the world.
type kvWorld interface {
	worldapi.StrWorld
	worldapi.StrMapWorld
}

// KVRes sets a key of the world to a value. With Mapped, the key is a
// namespace and the value is this host's entry in it (world.kvlookup reads
// the map). With SkipLessThan, a stored value greater than the wanted one
// (by SkipCmpStyle) is left alone, unless a refresh arrives. An undefined
// value removes the key.
type KVRes struct {
	traits.Base
	traits.Refreshable
	traits.Recvable

	init *engine.Init
	w    kvWorld

	// Key defaults to the resource name; a collected one must equal it.
	Key string `lang:"key" yaml:"key" collect:"name"`
	// Value is the wanted value; unset removes the key.
	Value *string `lang:"value" yaml:"value"`
	// Mapped makes Key a namespace and Value this host's entry in it.
	Mapped bool `lang:"mapped" yaml:"mapped"`
	// SkipLessThan leaves a stored value greater than Value alone.
	SkipLessThan bool `lang:"skiplessthan" yaml:"skiplessthan"`
	// SkipCmpStyle is how SkipLessThan compares: "int" (the default) or
	// "string".
	SkipCmpStyle string `lang:"skipcmpstyle" yaml:"skipcmpstyle"`
}

// Default returns a kv resource.
func (k *KVRes) Default() engine.Res { return &KVRes{} }

func (k *KVRes) key() string {
	if k.Key != "" {
		return k.Key
	}
	return k.Name()
}

// Validate checks the key and the comparison style.
func (k *KVRes) Validate() error {
	if k.key() == "" {
		return fmt.Errorf("empty key")
	}
	switch k.SkipCmpStyle {
	case "", SkipCmpInt, SkipCmpString:
	default:
		return fmt.Errorf("skipcmpstyle %q: want %q or %q", k.SkipCmpStyle, SkipCmpInt, SkipCmpString)
	}
	if k.SkipLessThan && k.Value != nil && k.style() == SkipCmpInt {
		if _, err := strconv.ParseInt(*k.Value, 10, 64); err != nil {
			return fmt.Errorf("skiplessthan with int comparison: value %q is not an integer", *k.Value)
		}
	}
	return nil
}

func (k *KVRes) style() string {
	if k.SkipCmpStyle == "" {
		return SkipCmpInt
	}
	return k.SkipCmpStyle
}

// Init finds the world.
func (k *KVRes) Init(init *engine.Init) error {
	k.init = init
	w, ok := init.World.(kvWorld)
	if !ok || init.World == nil {
		return fmt.Errorf("kv needs the world: run with --seeds, or let the tool start its embedded one")
	}
	k.w = w
	return nil
}

// Cleanup does nothing: the value stays in the world.
func (k *KVRes) Cleanup() error { return nil }

// Watch follows the key (or this host's entry of the namespace: any entry
// of it, since etcd watches prefixes).
func (k *KVRes) Watch(ctx context.Context) error {
	var ch <-chan error
	var err error
	if k.Mapped {
		ch, err = k.w.StrMapWatch(ctx, k.key())
	} else {
		ch, err = k.w.StrWatch(ctx, k.key())
	}
	if err != nil {
		return err
	}
	return follow(ctx, ch, k.init)
}

// follow turns world notifications into Running (the first) and Event.
func follow(ctx context.Context, ch <-chan error, init *engine.Init) error {
	running := false
	for {
		select {
		case err, ok := <-ch:
			if !ok {
				return ctx.Err()
			}
			if err != nil {
				init.Logf("world watch: %v (retrying)", err)
			}
			if !running {
				running = true
				init.Running()
				continue
			}
			init.Event()
		case <-ctx.Done():
			return nil
		}
	}
}

// get returns the stored value.
func (k *KVRes) get(ctx context.Context) (string, bool, error) {
	if k.Mapped {
		return k.w.StrMapGetHost(ctx, k.key())
	}
	return k.w.StrGet(ctx, k.key())
}

// CheckApply stores the value (or removes the key).
func (k *KVRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	have, exists, err := k.get(ctx)
	if err != nil {
		return false, err
	}
	if k.Value == nil {
		if !exists {
			return true, nil
		}
		if !apply {
			return false, nil
		}
		if k.Mapped {
			return false, k.w.StrMapDel(ctx, k.key())
		}
		return false, k.w.StrDel(ctx, k.key())
	}
	want := *k.Value
	if exists && have == want {
		return true, nil
	}
	refresh := k.init.Refresh()
	if exists && k.SkipLessThan && !refresh {
		greater, err := k.greater(have, want)
		if err != nil {
			return false, err
		}
		if greater {
			return true, nil
		}
	}
	if !apply {
		return false, nil
	}
	if k.Mapped {
		return false, k.w.StrMapSet(ctx, k.key(), want)
	}
	return false, k.w.StrSet(ctx, k.key(), want)
}

// greater reports whether the stored value have is greater than want in
// the comparison style.
func (k *KVRes) greater(have, want string) (bool, error) {
	if k.style() == SkipCmpString {
		return have > want, nil
	}
	h, err := strconv.ParseInt(have, 10, 64)
	if err != nil {
		return false, fmt.Errorf("stored value %q of key %s is not an integer", have, k.key())
	}
	w, err := strconv.ParseInt(want, 10, 64)
	if err != nil {
		return false, fmt.Errorf("value %q is not an integer", want)
	}
	return h > w, nil
}

// Cmp compares two kv resources.
func (k *KVRes) Cmp(r engine.Res) error {
	o, ok := r.(*KVRes)
	if !ok {
		return fmt.Errorf("not a kv resource")
	}
	switch {
	case k.key() != o.key():
		return fmt.Errorf("key differs")
	case (k.Value == nil) != (o.Value == nil) || k.Value != nil && *k.Value != *o.Value:
		return fmt.Errorf("value differs")
	case k.Mapped != o.Mapped:
		return fmt.Errorf("mapped differs")
	case k.SkipLessThan != o.SkipLessThan:
		return fmt.Errorf("skiplessthan differs")
	case k.style() != o.style():
		return fmt.Errorf("skipcmpstyle differs")
	}
	return nil
}
