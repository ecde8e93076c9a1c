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
// Key layout under the namespace NS. Every key a host owns carries the
// host's name right after its sub tree, so that one etcd key range grants
// a host its own keys and no other host's:
//
//	NS/strings/<key>                         plain string, shared (kv, world.getval)
//	NS/mapped/<hostname>/<namespace>         per-host map (kv mapped, world.kvlookup)
//	NS/exports/<from>/<to-host|*>/<kind>/<name>
//	                                         an exported resource, JSON of graph.Resource
//	NS/scheduler/hostname/<host>/<ns>        a volunteer, options as JSON, on the host's
//	                                         lease, a lease of its own (ttl) or none (persist)
//	NS/scheduler/schedule/<ns>               the chosen hosts, comma separated, shared
//	NS/converged/<host>                      "true" or "false", on a lease
//	NS/cluster/standby/<host>, NS/cluster/promote
//	                                         standbys and the membership lock (members only)
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
// The sub trees that every host reads again and again (the exports
// addressed to it, its own exports, the converged states, the scheduler's
// volunteers, the per-host maps) are each read once per Client and then
// followed by one watch whose events are applied to entries kept in
// memory (tree): a host's reads cost no request that grows with the
// number of hosts, and its watches wake only for the entries they concern
// (exports addressed to it, one namespace).
// A read still reflects every write committed before it (the current
// revision is read, one key, and the watch awaited up to it), except
// ConvergedState, which answers from the followed states while the watch
// runs: ClusterConverged reads no key as hosts change their states.
//
// Automatic clustering (Agent, behind mgmt-cluster run): a host without
// data and with seeds asks the cluster for its members. Below the ideal
// size it joins; at the ideal size it stands by: it records itself under
// cluster/standby/<host> on its lease, serves its client URLs as a raw TCP
// proxy to healthy members, and checks their health every second. When a
// member left, or failed five checks in a row and removing it keeps a
// quorum, the standby joins in its place.
//
// Every membership change made by the hosts (a join, the removal of a dead
// member, a leave) is made under the membership lock (cluster/promote), by
// one host at a time, and checked again once the lock is held (a fresh
// health check and member list). Taking the lock can fail (the cluster may
// have lost its quorum for a moment): the host then simply decides again
// later. Safety does not rest on the lock alone, which a host stalled
// beyond its lease's TTL can lose:
//
//   - A host joins as a learner (StartServer): a learner does not count
//     towards the quorum, so the cluster stays available while it starts
//     and catches up, and etcd admits one learner at a time. Once caught
//     up it is promoted, but only while the cluster has fewer voters than
//     the ideal size (checked on a linearizable member list just before;
//     no other voter can appear meanwhile, since every voter was that one
//     learner first). Otherwise it removes itself and stands by again. So
//     hosts starting at once, or two standbys racing for one dead member's
//     place, never grow the cluster beyond its ideal size.
//   - SIGTERM makes a member leave: under the lock it brings its view of
//     the membership up to date (a linearizable read), and unless it is
//     the last voter it removes itself. Its data is deleted only once the
//     removal is known to be committed: its own member applied it, or a
//     linearizable member list of the same cluster, from a peer, no longer
//     lists it (the leader may cut a removed member off before it applies
//     its removal). Otherwise it stops as a crash would, keeping its data
//     and its membership. The last voter only stops, keeping its data, so
//     members stopped all at once leave one after the other and the last
//     one can bring the cluster back.
//   - A member that stops on its own deletes its data only when its
//     removal is committed (it was thought dead), and joins again; any
//     other stop keeps the data and fails.
//   - A killed member restarts from its data. If it was removed meanwhile,
//     it learns so from its old peers, or from its seeds (asked every two
//     seconds while it starts: its old peers may all be gone), sets the
//     data aside (DATADIR.removed-N) and goes through the same decision as
//     a newcomer.
//
// Who may take the lock: under TLS only identities with etcd's root role
// (members, which standbys are too, and admins) may write the cluster/
// keys; hosts may not. A holder can hold up membership changes (until its
// lease ends) but not make an unsafe one, since every check above is
// etcd's or made on a linearizable member list.
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
// owner reaches the private world. mgmt-cluster run without TLS keeps
// its member the same way. The port is one the kernel found free, in its
// ephemeral range; another process may take it before etcd listens on it
// (an outgoing connection takes its local port from that range), and the
// member then starts on another one, with a line in the log, five ports
// in all (ServerConfig.PeerPicked). A peer URL the user gave is never
// replaced: a busy one fails the start.
//
// # Threat model
//
// The world is as trusted as whoever can write it: a host applies what it
// collects (an exported exec runs with the collecting host's rights,
// usually root's), and its programs read the world's values.
//
//   - Who can reach it. A private world (no seeds, no TLS) is reachable by
//     its owning user only, as above. A cluster spanning hosts uses TLS:
//     peers and clients need a certificate signed by the cluster's CA.
//     Plain http gives whoever reaches the port, every local user
//     included, the whole world: a member serves it only when told
//     --insecure (tests on one machine). etcd's JSON gateway is off.
//   - Who is who. Under TLS, etcd's authentication is on and the common
//     name of a verified client certificate is the etcd user (Identity): a
//     host's name, member/NAME or admin/NAME. The first member turns
//     authentication on; each member gives a CN it has not seen the role of
//     its identity (authority). So the CA is the one source of identities:
//     whoever holds its key can act as anyone, and a certificate cannot be
//     revoked short of a new CA (keep validity short).
//   - Who can write what. A host reads the whole namespace and writes only
//     the keys that carry its name (mapped/, exports/, scheduler/hostname/,
//     converged/) and two shared trees: strings/ (every host reads and
//     writes every plain string) and scheduler/schedule/ (copies for
//     inspection; readers compute schedules themselves). The tools check
//     that their host certificate names the host they run as. Members and
//     admins have etcd's root role: members add and remove members, and a
//     member holds the whole database anyway (it could forge raft
//     entries), so a host running a member, or a standby that may be
//     promoted, is trusted with everything. Peers accept only member
//     certificates (MemberSAN), so no host or admin speaks raft. Admin
//     certificates are for operators and belong on no host.
//   - What a host does with what it receives. An export's key names its
//     exporter, and no other host can write there, so Exported.From is
//     authentic; but a collecting host runs what it collects with its own
//     rights, trusting the exporter. The collecting side's checks (only
//     the kinds and names collected, only allowed exporters) are the
//     second line, applied where collected resources enter a graph. A
//     plain string is input from any host; a map entry is input from the
//     host it is filed under. A host can only report its own converged
//     state (it can delay the cluster's convergence, or claim its own early)
//     and volunteer only itself (the earliest volunteer's options win).
//   - The agent's world process. mgmt-apply holds its world in a child,
//     mgmt-cluster world-client (package worldpipe), which speaks only
//     over the pipe of its stdin and stdout: no socket, so only its parent
//     can make requests, and it has the parent's user and rights. Its
//     configuration crosses the pipe, not its command line, and names the
//     TLS files, which the child reads itself: no key crosses the pipe.
//   - Not covered: secrecy among hosts (every host reads the whole
//     namespace: keep secrets out of the world); namespaces other than the
//     one members run with (hosts get no rights there); a host filling the
//     shared trees.
//
// The scheduler needs no leader: every reader computes the schedule of a
// namespace from the live volunteers with a deterministic strategy, so all
// hosts agree on it; volunteers also store the result under
// scheduler/schedule/<ns> for inspection.
package world
