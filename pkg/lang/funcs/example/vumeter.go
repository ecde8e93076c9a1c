// Package example adds to the mcl module "example" (the small functions
// are in coreexample) vumeter, a level meter of the sound the host hears.
//
// example.vumeter(symbol, width, rate) records the default ALSA capture
// device with arecord(1) (mono, signed 16-bit samples at 8000 Hz, from one
// long-running process) and measures, rate times a second, the peak of
// the samples of that window as a fraction of full scale. It emits the
// meter as symbol repeated round(peak * width) times ("" in silence,
// width copies at full scale), each time the meter changes. A rate of at
// most 0 or above 8000, a width below 0, or an empty symbol is an error,
// and so is arecord failing (no such program, no capture device): the
// error tells which. ALSA's configuration chooses the device, so
// ALSA_CONFIG_PATH or ~/.asoundrc can point it elsewhere.
package example

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	"github.com/mgmtpipe/mgmt/pkg/lang/values"

	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/coreexample"
)

// sampleRate is the rate the meter records at, in samples per second.
const sampleRate = 8000

func init() {
	if _, dup := funcs.Lookup("example", "vumeter"); dup {
		return
	}
	funcs.RegisterStream("example", "vumeter", "func(name str, mul int, rate float) str", vumeter,
		funcs.Doc("A level meter of the default sound capture device (through arecord): name repeated mul times at full scale, measured rate times a second, emitted when it changes.",
			`example.vumeter("#", 20, 4.0)`))
}

func vumeter(ctx context.Context, c *funcs.Call, emit func(values.Value)) error {
	symbol := string(c.Args[0].(values.Str))
	width := int64(c.Args[1].(values.Int))
	rate := float64(c.Args[2].(values.Float))
	if symbol == "" || width < 0 || width > 1000 || !(rate > 0 && rate <= sampleRate) {
		return fmt.Errorf("vumeter: want a non-empty symbol, a width from 0 to 1000 and a rate above 0 and at most %d, got %q, %d, %v", sampleRate, symbol, width, rate)
	}
	window := int(math.Round(sampleRate / rate))
	arecord, err := exec.LookPath("arecord")
	if err != nil {
		return fmt.Errorf("vumeter: %v (install alsa-utils)", err)
	}
	cmd := exec.CommandContext(ctx, arecord, "-q", "-t", "raw", "-f", "S16_LE", "-c", "1", "-r", strconv.Itoa(sampleRate))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("vumeter: %v", err)
	}
	readErr := meter(bufio.NewReader(out), window, func(peak float64) string {
		return strings.Repeat(symbol, int(math.Round(peak*float64(width))))
	}, emit)
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return nil
	}
	if readErr != nil {
		return fmt.Errorf("vumeter: reading from arecord: %v", readErr)
	}
	if waitErr != nil {
		return fmt.Errorf("vumeter: arecord: %v: %s", waitErr, strings.TrimSpace(stderr.String()))
	}
	return nil // the recording ended
}

// meter reads signed 16-bit little-endian samples from r in windows of n,
// and emits draw(peak) for each window whose drawing differs from the
// last one emitted. It returns nil at the end of the input.
func meter(r io.Reader, n int, draw func(peak float64) string, emit func(values.Value)) error {
	buf := make([]byte, 2*n)
	last := ""
	first := true
	for {
		if _, err := io.ReadFull(r, buf); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return nil
			}
			return err
		}
		peak := 0
		for i := 0; i < len(buf); i += 2 {
			s := int(int16(binary.LittleEndian.Uint16(buf[i:])))
			if s < 0 {
				s = -s
			}
			peak = max(peak, s)
		}
		m := draw(float64(peak) / 32768)
		if first || m != last {
			emit(values.Str(m))
			last, first = m, false
		}
	}
}
