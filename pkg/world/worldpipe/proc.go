package worldpipe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// Find returns the path of the executable tool: the one next to the
// running executable first, then the one PATH names.
func Find(tool string) (string, error) {
	var beside string
	if exe, err := os.Executable(); err == nil {
		beside = filepath.Join(filepath.Dir(exe), tool)
		if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(tool); err == nil {
		return p, nil
	}
	if beside == "" {
		return "", fmt.Errorf("%s not found in PATH", tool)
	}
	return "", fmt.Errorf("%s not found: neither %s nor in PATH", tool, beside)
}

// proc is one run of the child: the pipe to it and the calls and watches
// waiting for its answers.
type proc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	start time.Time

	wmu sync.Mutex
	enc *json.Encoder

	mu      sync.Mutex
	next    uint64
	waiting map[uint64]*waiter

	done chan struct{} // closed once the child ended and was waited for
	end  error         // why, set before done is closed
}

// A waiter is a call or a watch waiting for answers.
type waiter struct {
	reply  chan reply    // the call's answer, or the watch's start
	events chan error    // a watch's notifications, coalesced
	ended  chan struct{} // closed when the watch ended
}

// startProc starts path with args, reading its answers in a goroutine
// that waits for the child at the end of its output and then calls
// ended. The child's stderr goes to stderr; its environment is this
// process's without the MGMT_ variables (its own flags' defaults: the
// configuration comes over the pipe). It runs in a process group of its
// own, so that a terminal's ^C reaches the parent only: the child ends
// when the parent closes the pipe, after the parent's last requests.
func startProc(path string, args []string, stderr io.Writer, ended func(*proc)) (*proc, error) {
	cmd := exec.Command(path, args...)
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MGMT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		in.Close()
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &proc{cmd: cmd, in: in, start: time.Now(), enc: json.NewEncoder(in), waiting: map[uint64]*waiter{}, done: make(chan struct{})}
	go p.read(out, ended)
	return p, nil
}

// read routes the child's answers until its output ends, then waits for
// it and fails everything still waiting.
func (p *proc) read(out io.Reader, ended func(*proc)) {
	dec := json.NewDecoder(out)
	dec.UseNumber()
	var rerr error
	for {
		var r reply
		if rerr = dec.Decode(&r); rerr != nil {
			break
		}
		p.route(r)
	}
	if !errors.Is(rerr, io.EOF) {
		// Not the protocol: stop the child rather than guess.
		p.cmd.Process.Kill()
		io.Copy(io.Discard, out)
	}
	werr := p.cmd.Wait()
	switch {
	case werr != nil:
		p.end = fmt.Errorf("the world client process (pid %d) ended: %v", p.cmd.Process.Pid, werr)
	case !errors.Is(rerr, io.EOF):
		p.end = fmt.Errorf("the world client process (pid %d) wrote something else than its protocol: %v", p.cmd.Process.Pid, rerr)
	default:
		p.end = fmt.Errorf("the world client process (pid %d) ended", p.cmd.Process.Pid)
	}
	close(p.done)
	ended(p)
}

// route hands an answer to its waiter.
func (p *proc) route(r reply) {
	p.mu.Lock()
	w := p.waiting[r.ID]
	if w != nil && (r.End || !r.Event && (w.events == nil || r.Err != nil)) {
		delete(p.waiting, r.ID) // a call's answer, a watch's end or failed start
	}
	p.mu.Unlock()
	switch {
	case w == nil: // a call that was given up
	case r.End:
		close(w.ended)
	case r.Event:
		worldapi.Pass(w.events, r.Err.err())
	default:
		select {
		case w.reply <- r:
		default:
		}
	}
}

// failure is the error of a request the ended child cannot answer: a
// transient one, since the child is started again.
func (p *proc) failure() error {
	return &Error{Msg: "world: " + p.end.Error(), Temp: true}
}

// send writes request r to the child.
func (p *proc) send(r request) error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if err := p.enc.Encode(r); err != nil {
		return &Error{Msg: fmt.Sprintf("world: writing to the world client process (pid %d): %v", p.cmd.Process.Pid, err), Temp: true}
	}
	return nil
}

// register gives r an id and a waiter (with events for a watch).
func (p *proc) register(r *request, watch bool) *waiter {
	w := &waiter{reply: make(chan reply, 1)}
	if watch {
		w.events, w.ended = make(chan error, 1), make(chan struct{})
	}
	p.mu.Lock()
	p.next++
	r.ID = p.next
	p.waiting[r.ID] = w
	p.mu.Unlock()
	return w
}

// giveUp forgets waiter id and tells the child to cancel it.
func (p *proc) giveUp(id uint64) {
	p.mu.Lock()
	delete(p.waiting, id)
	p.mu.Unlock()
	p.send(request{ID: id, Op: opCancel})
}

// call sends r and waits for its answer, the end of ctx (the child is
// told to cancel it) or the end of the child.
func (p *proc) call(ctx context.Context, r request) (reply, error) {
	w := p.register(&r, false)
	return p.await(ctx, r, w)
}

// await sends r, registered with w, and waits for its first answer.
func (p *proc) await(ctx context.Context, r request, w *waiter) (reply, error) {
	if err := p.send(r); err != nil {
		p.giveUp(r.ID)
		// A child that closed its input has usually ended: say how,
		// once its output ends too, rather than how the write failed.
		select {
		case <-p.done:
			return reply{}, p.failure()
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
		return reply{}, err
	}
	select {
	case rep := <-w.reply:
		return rep, rep.Err.err()
	case <-ctx.Done():
		p.giveUp(r.ID)
		return reply{}, ctx.Err()
	case <-p.done:
		return reply{}, p.failure()
	}
}

// close ends the child: it closes the pipe, after which the child closes
// the world and exits, and kills the child if it has not within grace.
func (p *proc) close(grace time.Duration) {
	p.in.Close()
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.cmd.Process.Kill()
		<-p.done
	}
}
