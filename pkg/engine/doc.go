// Package engine is the reactive engine: the resource API (Res, the traits,
// the Init handle, RegisterResource), the preparation of a graph document
// into a runnable graph, and the scheduler that keeps every resource in its
// desired state.
//
// # Preparing a graph (Build)
//
// First the document is validated by graph's Document.Validate, the one
// home of the graph rules: identical duplicates collapse, and differing
// duplicates, dangling edges, send/recv pairs whose types differ, bad
// metaparameters and cycles are refused, all of them in one ErrorList.
// Then each resource is created from the registry, its parameters are
// decoded into the resource struct by their `lang` (or `yaml`) tags (those
// of a struct an inline field holds as the kind's own: ParamField) over
// the defaults of Default, with numbers coerced to the declared field
// types; a value of the wrong type is an error naming the kind, name,
// parameter and position; then the resource's Validate runs (not for
// hidden resources). Automatic edges come next: the UIDs of every Edgeable resource
// are indexed by kind and name (trailing slash removed), and each resource's
// AutoEdge is asked, round after round, for the UIDs it depends on; matches
// (confirmed with IFF) become edges unless they would close a cycle.
// Autogrouping last: within a kind, in name order, each Groupable resource
// joins the first of the last 16 group heads whose GroupCmp accepts it, when
// no path joins them (a look for a path that would visit more than 512
// vertices counts as one found: the two stay apart); its edges move to the
// head, which from then on runs (and reports) for the whole group.
//
// # Running (Engine)
//
// One goroutine, Run, owns every piece of scheduling state (the sched
// type); everything else talks to it through a message inbox, except an
// event or the end of a CheckApply that finds the engine idle: its own
// goroutine then takes the scheduler's lock and does what Run would have
// done, at once (direct.go). Per resource,
// the watch calls Init and then Watch (or polls, with Meta:poll),
// retrying a failed Watch as Meta:retry and Meta:delay say; its Running and
// Event calls become messages. Init runs in a task of the engine's pool
// (at most 16 goroutines, whatever the size of the graph), and so does
// Subscribe for a Subscriber (the file kind, and the kinds with no state to
// follow: noop, msg, print, exit), which is followed through
// Subscribe instead of Watch: the resource's events come from whoever
// watches for it (the shared file watcher), and cancelling the vertex's
// watch (a swap, the end of Run) stops the subscription in a task of the
// pool, so an idle graph of 100,000 files holds no goroutine, context or
// channel per file, and loading or stopping it runs no more goroutines
// than the pool's. A Watch that blocks runs in a goroutine of its own, and
// a subscription that breaks goes on in a new goroutine as a failed Watch.
// CheckApply calls run in goroutines of their own pool, at most
// Config.Parallel at once (a slot is taken before the call is queued; a
// goroutine runs one call after another while there are calls to run, and
// ends when there are none), and report back with a message. The rules, applied by the Run
// goroutine after each batch of messages:
//
//   - An event marks its resource dirty. A dirty resource runs its
//     CheckApply once every dependency is settled (applied without error
//     since its last event, idle, not failed), at most once at a time,
//     within its semaphores (Meta:sema, plus the global one of Config.Sema)
//     and the engine's parallelism cap, and within its rate limit
//     (Meta:limit/burst). Independent resources thus run in parallel.
//   - A CheckApply that changed something (checkOK false, in apply mode)
//     marks its successors dirty; notify edges also deliver a refresh,
//     read through Init.Refresh during the successor's next CheckApply.
//     Before a CheckApply, values sent over send/recv edges are copied into
//     the receiver's parameters (Init.Recv tells which changed); a new sent
//     value marks the receiver dirty.
//   - An error is retried (Meta:retry, -1 forever; Meta:delay between
//     tries; Meta:retryreset refills the count after a success). When the
//     retries are exhausted the resource fails for good, and its
//     descendants are blocked; everything else carries on. A failed
//     resource gets another try, with its retries refilled, when what it
//     failed on changes: at once when a dependency changes something (a
//     file whose directory was missing, once the directory is made), and
//     on its own Watch's events once a pause of a second has passed (so a
//     failure that fires its own Watch cannot loop). A resource whose
//     Init or Watch failed stays failed until a new graph.
//   - The graph is converged when no resource is dirty, running, waiting for
//     a timer, or waiting for its Watch to start, and no polled resource's
//     last CheckApply found something to repair; failed and blocked
//     resources do not count. (A resource that repaired itself is normally
//     checked again right away, because its Watch sees the repair: the
//     paired execution. A watch may leave out a change it knows to be
//     the resource's own and complete, as the file kind's does for a file
//     it creates with one link.) Once converged for Config.ConvergedTimeout,
//     Converged() is closed.
//
// # Watches that cannot start
//
// A Watch that fails because a kernel limit keeps it from starting returns
// an error with a WatchLimit() string method naming the limit (the file
// watcher does for the inotify limits: ENOSPC from inotify_add_watch is
// fs.inotify.max_user_watches, EMFILE from inotify_init is
// fs.inotify.max_user_instances, or RLIMIT_NOFILE when the process is out
// of descriptors). Such a resource is not failed: it is polled instead,
// checked at once and every Config.LimitPoll (10 s by default), and before
// each poll its Watch is tried again, so it goes back to watching as soon
// as the limit allows. The first resource stopped by each limit is logged
// with the limit to raise; the others are polled without a message, and
// the first return to watching is logged too. A polled resource counts for
// convergence like one with Meta:poll.
//
// # The periodic recheck
//
// With Config.Recheck set (mgmt-apply --recheck, 30 minutes by default),
// every resource gets a check-only CheckApply (apply false) once per
// interval: a safety net under the watches, so that a change no watch
// reported (a missed event, a write through a shared memory mapping, a
// change on a network file system made by another host) costs at most the
// interval. The ticks are spread over the interval, one vertex each in key
// order, and a tick is skipped while the previous recheck is not over, so
// at most one recheck runs at a time whatever the size of the graph. A
// recheck is scheduled like any other run (dependencies settled,
// semaphores, the parallelism cap, never beside another CheckApply of the
// same resource), only for a resource with nothing pending, and a recheck
// that finds the resource in its state changes nothing and does not count
// as work for convergence. Drift found by a recheck waits a second for an
// event still on its way; if none comes the resource runs as after an
// event and, when its Watch was running, the drift is counted as missed
// (Status.Missed, the Prometheus counter mgmt_recheck_drift_total, which
// should stay 0) and logged as a warning. In noop mode, drift that the
// last check already reported is not counted again.
//
// # Graph swaps
//
// Load hands over a new graph. Each new vertex is compared with the running
// vertex of the same kind and name (parameters, metaparameters, group
// members; Cmp decides when the parameters are spelt differently): equal
// ones keep running untouched. The parameters are compared through a
// digest taken by Build, so a graph compacted before it is loaded
// (Graph.Compact: the document's parameter trees let go of, each resource
// holding its decoded values) swaps as the full one would. Removed and changed vertices are stopped:
// their Watch is cancelled, a running CheckApply is waited for, a
// Meta:realize resource that never ran gets one CheckApply, and Cleanup
// runs. A changed vertex's replacement starts only once its predecessor has
// fully stopped, so one resource never has two CheckApply calls at once;
// its first CheckApply comes from its own Running, so no event is lost.
//
// # Reversals
//
// A Reversible resource with Meta:reverse has, after each CheckApply that
// applied, its Reversed resource saved under PREFIX/reverse; what the
// reversal needs beyond its parameters (a file's original content) the
// resource keeps in its VarDir(ReverseVarDir). Whenever a graph is loaded
// without that resource (in the same run or after a restart), the saved
// resource joins the graph, with Init.Reversal set. After its first
// CheckApply that applies without error (a noop run does not count), the
// reversal is done: the saved resource and the ReverseVarDir are deleted
// and the vertex leaves the running graph, so it never enforces the old
// state over a later edit, and a later reversal of the same resource
// starts from a fresh state. The ReverseVarDir is also deleted when the
// resource runs without Meta:reverse.
package engine
