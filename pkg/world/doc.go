// Package world is the shared state of a cluster of hosts (the "world"),
// kept in etcd. It has two halves:
//
//   - Client, used by every tool: plain string keys, per-host string maps,
//     exported resources, the scheduler, the cluster-wide converged state,
//     membership, and watches on all of them. Every key lives under a
//     namespace (default "/_mgmt") with the layout below.
//   - Server, an embedded etcd member: it starts a new cluster, or joins an
//     existing one through seed endpoints (adding itself with the member API
//     before starting), restarts from a crashed member's data directory, and
//     on a clean Leave removes itself from the cluster.
//
// Key layout under the namespace NS:
//
//	NS/strings/<key>                         plain string (kv, world.getval)
//	NS/strings/<namespace>/<hostname>        per-host map (kv mapped, world.kvlookup)
//	NS/exported/<to-host|*>/<from>/<kind>/<name>
//	                                         an exported resource, JSON of graph.Resource
//	NS/scheduler/hostname/<host>/<ns>        a volunteer, options as JSON, on a lease
//	NS/scheduler/schedule/<ns>               the chosen hosts, comma separated
//	NS/converged/<host>                      "true" or "false", on a lease
//
// Watches deliver coalesced change notifications on a channel: a nil value
// means "something under the watched key changed, read it again"; the first
// one arrives as soon as the watch is established, so a consumer reads the
// initial state and every later change with one loop.
//
// The scheduler needs no leader: every reader computes the schedule of a
// namespace from the live volunteers with a deterministic strategy, so all
// hosts agree on it; volunteers also store the result under
// scheduler/schedule/<ns> for inspection.
package world
