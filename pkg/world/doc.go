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
// Exported values are read back by ResCollect, which returns every entry
// addressed to this host or to "*", with Err set on the ones a collecting
// host must not apply: undecodable, naming another kind or name than the
// key, or breaking the kind's graph.CollectRules. A collected copy loses
// Meta:export and Meta:hidden, as an exported one does, so it is never
// exported again under the collecting host's name.
//
// Watches deliver coalesced change notifications on a channel: a nil value
// means "something under the watched key changed, read it again"; the first
// one arrives as soon as the watch is established, so a consumer reads the
// initial state and every later change with one loop.
//
// Automatic clustering (Agent, behind mgmt-cluster run): a host without
// data and with seeds asks the cluster for its members. Below the ideal
// size it adds itself and starts its member; at the ideal size it stands
// by: it records itself under cluster/standby/<host> on its lease, serves
// its client URLs as a raw TCP proxy to healthy members, and checks their
// health every second. When a member left, or failed five checks in a row
// and removing it keeps a quorum, the standby takes a promotion lock,
// removes the dead member, adds itself and starts. SIGTERM makes a member
// leave (remove itself, delete its data); a killed member restarts from its
// data, or, if it was removed meanwhile, sets the data aside and goes
// through the same decision as a newcomer.
//
// Tools without seeds use Open's private world: the first use starts a
// single-member etcd under <prefix>/world, a directory of mode 0700 owned
// by the tool's user (Layout): data in world/server, locked by
// world/server.lock, serving clients on the unix socket world/client.sock
// (mode 0600), its URL published in world/server.url (mode 0600). Another
// tool on the same prefix, or mgmt-cluster run on that data directory, is
// found through these files and shared instead of started twice. etcd
// always listens for peers; a member alone in its cluster listens on a
// loopback port that demands a client certificate of a CA made for that
// run, kept in the private directory (Layout.PrivatePeer). So only the
// owner reaches the private world.
//
// Security: peer and client traffic can use TLS with client certificates
// (GenerateCerts makes a CA and host certificates). A member serves plain
// http only when told to be insecure, loopback included; clients reach
// plain http on loopback, and elsewhere only when told to be insecure.
// etcd's JSON gateway is off.
//
// The scheduler needs no leader: every reader computes the schedule of a
// namespace from the live volunteers with a deterministic strategy, so all
// hosts agree on it; volunteers also store the result under
// scheduler/schedule/<ns> for inspection.
package world
