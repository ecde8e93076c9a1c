// Package leakcheck lets a test see which goroutines are running: to
// check that an owner has joined the goroutines it started.
//
// A goroutine started through sync.WaitGroup.Go runs its function inside
// the WaitGroup's wrapper, and Wait returns once that function has
// returned; the wrapper may still be on its way out. So a goroutine whose
// stack still shows the function after its owner's Wait returned is a
// goroutine the owner did not join, and Running needs no deadline to see
// it: it is exact at the moment the owner returns.
package leakcheck

import (
	"runtime"
	"strings"
)

// Running returns the stacks of the goroutines (other than the caller's)
// with a frame whose function name contains fn, such as
// "fswatch.(*Watcher).loop".
func Running(fn string) []string {
	buf := make([]byte, 1<<16)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	stacks := strings.Split(string(buf), "\n\n")
	var out []string
	for _, s := range stacks[1:] { // the first is the caller's
		for _, line := range strings.Split(s, "\n")[1:] {
			if !strings.HasPrefix(line, "\t") && strings.Contains(line, fn) {
				out = append(out, s)
				break
			}
		}
	}
	return out
}
