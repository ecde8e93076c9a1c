package resources

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

func init() {
	engine.RegisterResource("msg", func() engine.Res { return &MsgRes{} })
}

// journalSocket is where systemd-journald reads native protocol datagrams.
const journalSocket = "/run/systemd/journal/socket"

// syslogSocket is the local syslog socket (journald's, or a syslog
// daemon's).
const syslogSocket = "/dev/log"

// syslogFacility is the facility of the messages sent to syslog: daemon.
const syslogFacility = 3

// msgPriorities maps the priority names to syslog levels.
var msgPriorities = map[string]int{
	"emerg": 0, "alert": 1, "crit": 2, "err": 3,
	"warning": 4, "notice": 5, "info": 6, "debug": 7,
}

// MsgRes sends a message to the log and, with journal set and a running
// journald, to the systemd journal; with syslog set, to the local syslog
// socket /dev/log too. The message goes out on the first CheckApply,
// whenever it changes (it can be received) and on a refresh.
type MsgRes struct {
	traits.Base
	traits.Stateless
	traits.Refreshable
	traits.Recvable

	init *engine.Init

	// Body is the message.
	Body string `lang:"body" yaml:"body"`
	// Priority is a syslog level name: emerg, alert, crit, err, warning,
	// notice, info (the default) or debug.
	Priority string `lang:"priority" yaml:"priority"`
	// Fields are extra journal fields; names are upper-cased.
	Fields map[string]string `lang:"fields" yaml:"fields"`
	// Journal also sends the message to the systemd journal.
	Journal bool `lang:"journal" yaml:"journal"`
	// Syslog also sends the message to the local syslog socket /dev/log
	// (facility daemon, the priority as its severity, tagged with the
	// SYSLOG_IDENTIFIER field or the program's name); the fields are not
	// sent. A missing socket is an error: nothing would receive it.
	Syslog bool `lang:"syslog" yaml:"syslog"`

	socket     string // journal socket; journalSocket unless a test sets it
	syslogPath string // syslog socket; syslogSocket unless a test sets it

	mu   sync.Mutex
	sent *string // signature of the message last sent
}

// Default returns a msg resource.
func (obj *MsgRes) Default() engine.Res { return &MsgRes{} }

// Validate checks the priority and the field names.
func (obj *MsgRes) Validate() error {
	if _, ok := msgPriorities[strings.ToLower(obj.Priority)]; !ok && obj.Priority != "" {
		return fmt.Errorf("unknown priority %q (want emerg, alert, crit, err, warning, notice, info or debug)", obj.Priority)
	}
	for k := range obj.Fields {
		if err := journalFieldName(strings.ToUpper(k)); err != nil {
			return err
		}
	}
	return nil
}

// journalFieldName checks a journal field name: upper-case letters, digits
// and underscores, not starting with an underscore or a digit, at most 64
// characters.
func journalFieldName(k string) error {
	if k == "" || len(k) > 64 || k[0] == '_' || (k[0] >= '0' && k[0] <= '9') {
		return fmt.Errorf("invalid journal field name %q", k)
	}
	for _, r := range k {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return fmt.Errorf("invalid journal field name %q", k)
		}
	}
	return nil
}

// Init keeps the handle.
func (obj *MsgRes) Init(init *engine.Init) error {
	obj.init = init
	if obj.socket == "" {
		obj.socket = journalSocket
	}
	if obj.syslogPath == "" {
		obj.syslogPath = syslogSocket
	}
	return nil
}

// Cleanup does nothing.
func (obj *MsgRes) Cleanup() error { return nil }

// Watch has nothing to follow: a sent message leaves no state that could
// drift.
func (obj *MsgRes) Watch(ctx context.Context) error {
	obj.init.Running()
	<-ctx.Done()
	return nil
}

func (obj *MsgRes) signature() string {
	keys := make([]string, 0, len(obj.Fields))
	for k := range obj.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(obj.Priority + "\x00" + obj.Body)
	for _, k := range keys {
		b.WriteString("\x00" + k + "=" + obj.Fields[k])
	}
	return b.String()
}

// CheckApply sends the message when it is due.
func (obj *MsgRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	refresh := obj.init != nil && obj.init.Refresh()
	sig := obj.signature()
	obj.mu.Lock()
	due := obj.sent == nil || *obj.sent != sig || refresh
	obj.mu.Unlock()
	if !due {
		return true, nil
	}
	if !apply {
		return false, nil
	}
	if obj.init != nil {
		obj.init.Logf("%s: %s", obj.priority(), obj.Body)
	}
	if obj.Syslog {
		if err := syslogSend(obj.syslogPath, obj.syslogLine(time.Now())); err != nil {
			return false, fmt.Errorf("syslog: %v", err)
		}
	}
	if obj.Journal {
		if _, err := os.Stat(obj.socket); err == nil {
			if err := journalSend(obj.socket, obj.journalFields()); err != nil {
				return false, fmt.Errorf("journal: %v", err)
			}
		}
	}
	obj.mu.Lock()
	obj.sent = &sig
	obj.mu.Unlock()
	return false, nil
}

func (obj *MsgRes) priority() string {
	if obj.Priority == "" {
		return "info"
	}
	return strings.ToLower(obj.Priority)
}

// identifier returns the tag of the message: its SYSLOG_IDENTIFIER field
// or the name of the program running the engine.
func (obj *MsgRes) identifier() string {
	for k, v := range obj.Fields {
		if strings.ToUpper(k) == "SYSLOG_IDENTIFIER" {
			return v
		}
	}
	if obj.init != nil && obj.init.Program != "" {
		return obj.init.Program
	}
	return "mgmt"
}

// syslogLine returns the message in the format of the local syslog
// socket (RFC 3164, without the host name): "<PRI>Mmm dd hh:mm:ss
// TAG[PID]: BODY", PRI being the facility times 8 plus the severity.
func (obj *MsgRes) syslogLine(now time.Time) []byte {
	pri := syslogFacility*8 + msgPriorities[obj.priority()]
	return fmt.Appendf(nil, "<%d>%s %s[%d]: %s", pri, now.Format(time.Stamp), obj.identifier(), os.Getpid(), obj.Body)
}

// syslogSend writes one message to the syslog socket at path: one
// datagram, or, where the socket is a stream one, the message and a
// newline.
func syslogSend(path string, line []byte) error {
	conn, err := net.Dial("unixgram", path)
	if errors.Is(err, syscall.EPROTOTYPE) {
		conn, err = net.Dial("unix", path)
		line = append(line, '\n')
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Write(line)
	return err
}

func (obj *MsgRes) journalFields() map[string]string {
	f := map[string]string{}
	for k, v := range obj.Fields {
		f[strings.ToUpper(k)] = v
	}
	f["MESSAGE"] = obj.Body
	f["PRIORITY"] = strconv.Itoa(msgPriorities[obj.priority()])
	f["SYSLOG_IDENTIFIER"] = obj.identifier()
	return f
}

// journalSend writes one entry to journald in its native protocol: a
// datagram of fields, each "NAME=value\n", or, for a value holding a
// newline, "NAME\n" followed by the value's length as a little-endian
// 64-bit integer, the value and "\n".
func journalSend(socket string, fields map[string]string) error {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var buf bytes.Buffer
	for _, k := range keys {
		v := fields[k]
		if !strings.ContainsRune(v, '\n') {
			buf.WriteString(k + "=" + v + "\n")
			continue
		}
		buf.WriteString(k + "\n")
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], uint64(len(v)))
		buf.Write(n[:])
		buf.WriteString(v + "\n")
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: socket, Net: "unixgram"})
	if err != nil {
		return err
	}
	defer conn.Close()
	_, err = conn.Write(buf.Bytes())
	if errors.Is(err, syscall.EMSGSIZE) || errors.Is(err, syscall.ENOBUFS) {
		return journalSendMemfd(socket, buf.Bytes())
	}
	return err
}

// journalSendMemfd sends an entry too big for one datagram the way
// journald expects it: written to a sealed memfd whose descriptor is passed
// in an empty datagram.
func journalSendMemfd(socket string, data []byte) error {
	fd, err := unix.MemfdCreate("mgmt-journal", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), "mgmt-journal")
	defer f.Close()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SHRINK|unix.F_SEAL_GROW|unix.F_SEAL_WRITE|unix.F_SEAL_SEAL); err != nil {
		return err
	}
	// A connected datagram socket refuses sendmsg with an address in Go's
	// net package; a raw unconnected one sends the descriptor.
	sock, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(sock)
	return unix.Sendmsg(sock, nil, unix.UnixRights(fd), &unix.SockaddrUnix{Name: socket}, 0)
}

// Cmp compares two msg resources.
func (obj *MsgRes) Cmp(r engine.Res) error {
	res, ok := r.(*MsgRes)
	if !ok {
		return fmt.Errorf("not a %T", obj)
	}
	if obj.signature() != res.signature() || obj.Journal != res.Journal || obj.Syslog != res.Syslog {
		return fmt.Errorf("the message differs")
	}
	return nil
}
