// Package coresys holds the mcl module "sys": environment and load.
package coresys

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/types"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"
)

var loadType = types.MustParse("struct{x1 float; x5 float; x15 float}")

func readLoad() (values.Value, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil, err
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return nil, fmt.Errorf("bad /proc/loadavg")
	}
	s := &values.Struct{T: loadType, V: make([]values.Value, 3)}
	for i := 0; i < 3; i++ {
		x, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return nil, err
		}
		s.V[i] = values.Float(x)
	}
	return s, nil
}

func init() {
	funcs.RegisterStream("sys", "load", "func() "+loadType.String(), func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		for {
			v, err := readLoad()
			if err != nil {
				return err
			}
			emit(v)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(5 * time.Second):
			}
		}
	}, funcs.Doc("The 1, 5 and 15 minute load averages, a new value every few seconds.", "sys.load()"))
	funcs.Register("sys", "getenv", "func(name str) str", func(ctx context.Context, a []values.Value) (values.Value, error) {
		v, ok := os.LookupEnv(string(a[0].(values.Str)))
		if !ok {
			return nil, funcs.Catchablef("environment variable %s is not set", string(a[0].(values.Str)))
		}
		return values.Str(v), nil
	}, funcs.Doc("An environment variable of mcl-compile; an unset one is an error <|> can catch.", `sys.getenv("HOME")`))
	funcs.Register("sys", "hasenv", "func(name str) bool", func(ctx context.Context, a []values.Value) (values.Value, error) {
		_, ok := os.LookupEnv(string(a[0].(values.Str)))
		return values.Bool(ok), nil
	}, funcs.Doc("Whether an environment variable is set.", `sys.hasenv("HOME")`))
	funcs.RegisterFunc(&funcs.Func{Module: "sys", Name: "env", Sigs: funcs.Sigs("func() map{str: str}"),
		Impl: func(ctx context.Context, c *funcs.Call) (values.Value, error) {
			m := values.NewMap(c.Type.Out)
			for _, kv := range os.Environ() {
				if k, v, ok := strings.Cut(kv, "="); ok {
					m.Set(values.Str(k), values.Str(v))
				}
			}
			return m, nil
		}, Doc: "The environment of mcl-compile, as a map.", Example: "sys.env()"})
	funcs.RegisterStream("sys", "cpu_count", "func() int", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		emit(values.Int(runtime.NumCPU()))
		return nil
	}, funcs.Doc("The number of online CPUs, following CPU hotplug.", "sys.cpu_count()"))
	funcs.RegisterStream("sys", "uptime", "func() int", func(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
		for {
			b, err := os.ReadFile("/proc/uptime")
			if err != nil {
				return err
			}
			f := strings.Fields(string(b))
			up, _ := strconv.ParseFloat(f[0], 64)
			emit(values.Int(int64(up)))
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Second):
			}
		}
	}, funcs.Doc("The host's uptime in seconds, a new value every second.", "sys.uptime()"))
}
