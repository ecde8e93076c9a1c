// Package worldpipe lets a tool use the world without linking its etcd
// client: a child process holds the connection (pkg/world's Lazy: the
// client of --seeds, or the private member under the prefix) and serves
// worldapi.World to its parent over the child's stdin and stdout. The
// parent's side, Client, imports no etcd, gRPC or protobuf package, so a
// tool that links only it starts with none of their pages resident.
//
// The protocol (Version) is newline-delimited JSON, one object a line.
// The parent writes requests: {"id":N,"op":OP,...}, ids increasing from
// 1; the first request is {"op":"open","proto":"world-pipe/v2","open":
// CONFIG}, and a child that speaks another version refuses it (it
// answers {"id":N,"opened":"world-pipe/v2"} when it opened). The child
// answers each call once: {"id":N,...} with the result's fields, or
// {"id":N,"err":{"msg":M,"transient":true}}. A watch is answered once
// when it starts (or fails to), then with {"id":N,"event":true} (and
// "err" when the notification is an error) at each notification, and
// {"id":N,"end":true} when it ends. {"id":N,"op":"cancel"} cancels call
// or watch N: every call runs under a context of its own in the child.
//
// The child serves until its stdin ends (the parent closed the pipe, or
// died): it then cancels what runs, closes the world (this host's lease
// is revoked, a private member stops) and exits. Only the parent holds
// the other end of the pipe; nothing else can reach the child.
package worldpipe

import (
	"github.com/mgmtpipe/mgmt/pkg/graph"
	"github.com/mgmtpipe/mgmt/pkg/world/worldapi"
)

// Version names the protocol.
const Version = "world-pipe/v2"

// Config is the world the child opens, as the parent's flags give it.
// The TLS fields are paths of files, which the child reads itself: no
// key travels over the pipe.
type Config struct {
	Seeds     []string `json:"seeds,omitempty"`
	Namespace string   `json:"namespace,omitempty"`
	Hostname  string   `json:"hostname"`
	Prefix    string   `json:"prefix,omitempty"`
	TLSCert   string   `json:"tls_cert,omitempty"`
	TLSKey    string   `json:"tls_key,omitempty"`
	TLSCA     string   `json:"tls_ca,omitempty"`
}

// The operations of the protocol: open and cancel, the calls, and the
// watches (the ops ending in "_watch").
const (
	opOpen   = "open"
	opCancel = "cancel"

	opStrGet        = "str_get"
	opStrSet        = "str_set"
	opStrDel        = "str_del"
	opStrWatch      = "str_watch"
	opStrMapGet     = "strmap_get"
	opStrMapGetHost = "strmap_get_host"
	opStrMapSet     = "strmap_set"
	opStrMapDel     = "strmap_del"
	opStrMapWatch   = "strmap_watch"
	opResExport     = "res_export"
	opResCollect    = "res_collect"
	opResWatch      = "res_watch"
	opSchedAdd      = "sched_add"
	opSchedWithdraw = "sched_withdraw"
	opSchedRelease  = "sched_release"
	opSchedVolunt   = "sched_volunteering"
	opSchedule      = "schedule"
	opScheduleWatch = "schedule_watch"
	opSetConverged  = "set_converged"
	opConverged     = "converged"
	opConvState     = "converged_state"
	opConvWatch     = "converged_watch"
	opMetrics       = "metrics"
)

// request is one line from the parent. Key is the call's key, map
// namespace, scheduler namespace or kind, whichever it takes.
type request struct {
	ID    uint64              `json:"id"`
	Op    string              `json:"op"`
	Proto string              `json:"proto,omitempty"`
	Open  *Config             `json:"open,omitempty"`
	Key   string              `json:"key,omitempty"`
	Value string              `json:"value,omitempty"`
	Bool  bool                `json:"bool,omitempty"`
	Sched *worldapi.SchedOpts `json:"sched,omitempty"`
	Res   []*graph.Resource   `json:"res,omitempty"`
}

// reply is one line from the child.
type reply struct {
	ID       uint64                   `json:"id"`
	Opened   string                   `json:"opened,omitempty"` // the answer to open: Version
	Err      *wireError               `json:"err,omitempty"`
	Event    bool                     `json:"event,omitempty"`
	End      bool                     `json:"end,omitempty"`
	Str      string                   `json:"str,omitempty"`
	OK       bool                     `json:"ok,omitempty"`
	Map      map[string]string        `json:"map,omitempty"`
	Bools    map[string]bool          `json:"bools,omitempty"`
	Conv     *worldapi.ConvergedState `json:"conv,omitempty"`
	List     []string                 `json:"list,omitempty"`
	Sched    *worldapi.SchedOpts      `json:"sched,omitempty"`
	Exported []wireExported           `json:"exported,omitempty"`
	Text     string                   `json:"text,omitempty"`
}

// wireError is an error as it crosses the pipe: its message, and whether
// the world recovers from it by itself (worldapi.Transient in the
// parent).
type wireError struct {
	Msg       string `json:"msg"`
	Transient bool   `json:"transient,omitempty"`
}

// wireExported is a worldapi.Exported as it crosses the pipe.
type wireExported struct {
	From string          `json:"from"`
	To   string          `json:"to"`
	Key  string          `json:"key"`
	Res  *graph.Resource `json:"res"`
	Err  string          `json:"err,omitempty"`
}

// An Error is an error of the world the child reported, or the end of
// the child itself. Transient says whether trying again later can help.
type Error struct {
	Msg  string
	Temp bool
}

func (e *Error) Error() string { return e.Msg }

// Transient reports whether the world (or the child) may recover.
func (e *Error) Transient() bool { return e.Temp }

func (w *wireError) err() error {
	if w == nil {
		return nil
	}
	return &Error{Msg: w.Msg, Temp: w.Transient}
}

// toWire returns the wire form of err, nil for nil.
func toWire(err error, transient func(error) bool) *wireError {
	if err == nil {
		return nil
	}
	return &wireError{Msg: err.Error(), Transient: transient(err)}
}
