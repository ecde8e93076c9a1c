package world

// A member leaving the cluster: removing itself once the removal is safe,
// and the retries of membership changes while the cluster is unhealthy.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	etcderr "go.etcd.io/etcd/server/v3/etcdserver/errors"
)

// ErrLastMember is returned by Leave when the member is the cluster's only
// voting member: it stops but stays a member, keeping its data.
var ErrLastMember = errors.New("last member of the cluster: stopped, data kept")

// Leave removes the member from the cluster, stops it and deletes its data
// directory (a removed member's data can never be used again). The data is
// deleted only once the removal is known to be committed; when it is not
// (no quorum, time is up), the member stops as a crash would, still a
// member with its data, and Leave returns the error. The last voting
// member only stops, and Leave returns ErrLastMember. Concurrent leaves
// must be serialized (see Agent), so that the last member knows it is the
// last.
func (s *Server) Leave(ctx context.Context) error {
	return s.leave(ctx, func() {})
}

// leave is Leave, calling decided once the outcome is known, before the
// member stops (stopping may take a few seconds, while etcd waits for its
// clients' requests).
func (s *Server) leave(ctx context.Context, decided func()) error {
	err := s.removeSelf(ctx)
	decided()
	s.Close()
	if err != nil {
		return err
	}
	return os.RemoveAll(s.cfg.DataDir)
}

// removeSelf removes the member from the cluster and returns nil once the
// removal is committed.
func (s *Server) removeSelf(ctx context.Context) error {
	es := s.etcd.Server
	// A linearizable read brings this member's view of the membership up
	// to date with every change committed before (an earlier leave), so
	// that it knows whether it is the last voter.
	if err := es.LinearizableReadNotify(ctx); err != nil {
		return fmt.Errorf("leaving: %v (stopped, still a member; data kept)", err)
	}
	if s.otherVoters() == 0 {
		return ErrLastMember
	}
	if es.Leader() == es.MemberID() {
		// Hand leadership over first, so the cluster keeps a leader
		// while the removal is applied.
		es.TryTransferLeadershipOnShutdown()
	}
	err := retryUnhealthy(ctx, s.removeOwn)
	// An error does not mean the removal failed: the leader may apply it
	// and cut this member off before it applies it itself ("server
	// stopped"), or the answer may come too late. removed asks.
	if err != nil && !s.removed() {
		return fmt.Errorf("removing member %s: %v (stopped, still a member; data kept)", s.cfg.Name, err)
	}
	// Once the removal is applied the member stops on its own.
	select {
	case <-es.StopNotify():
	case <-time.After(5 * time.Second):
	case <-ctx.Done():
	}
	return nil
}

// removeOwn asks for this member's removal. With authentication on, etcd
// wants an identity with the root role for it: the member asks as a
// client, with its own certificate.
func (s *Server) removeOwn(ctx context.Context) error {
	es := s.etcd.Server
	if s.auth == nil {
		_, err := es.RemoveMember(ctx, uint64(es.MemberID()))
		return err
	}
	cli, err := s.auth.client()
	if err == nil {
		_, err = cli.MemberRemove(ctx, uint64(es.MemberID()))
	}
	return err
}

// otherVoters returns the number of voting members besides this one, as
// this member knows them.
func (s *Server) otherVoters() int {
	n := 0
	for _, m := range s.etcd.Server.Cluster().Members() {
		if m.ID != s.etcd.Server.MemberID() && !m.IsLearner {
			n++
		}
	}
	return n
}

// removed reports whether the member's removal from the cluster is
// committed: this member applied it, or its peers no longer list it (see
// goneAt). It tells a removal from a failure before data is thrown away.
func (s *Server) removed() bool {
	es := s.etcd.Server
	if es.Cluster().Member(es.MemberID()) == nil {
		return true
	}
	var peers []string
	for _, m := range es.Cluster().Members() {
		if m.ID != es.MemberID() {
			peers = append(peers, m.ClientURLs...)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return s.goneAt(ctx, append(peers, s.cfg.Seeds...))
}

// goneAt reports whether a linearizable member list of this member's
// cluster, answered through the client URLs us (other than this member's
// own), no longer lists this member: its removal is committed. A member
// removed by the leader may be cut off before it applies the removal
// itself ("server stopped"), and a member restarting from its data may
// never hear of a removal made while it was down. Any doubt (no answer,
// another cluster) answers false.
func (s *Server) goneAt(ctx context.Context, us []string) bool {
	own := map[string]bool{}
	for _, u := range s.cfg.advClient() {
		own[u] = true
	}
	var peers []string
	for _, u := range us {
		if !own[u] {
			peers = append(peers, u)
		}
	}
	if len(peers) == 0 {
		return false
	}
	cli, err := s.cfg.seedClient(peers)
	if err != nil {
		return false
	}
	defer cli.Close()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	list, err := memberList(cctx, cli)
	if err != nil || list.Header == nil || list.Header.ClusterId != uint64(s.etcd.Server.Cluster().ID()) {
		return false
	}
	for _, m := range list.Members {
		if m.ID == uint64(s.etcd.Server.MemberID()) {
			return false
		}
	}
	return true
}

// reconfigTimeout bounds the retries of one membership change.
const reconfigTimeout = time.Minute

// retryUnhealthy runs op until it succeeds, fails with another error than
// "unhealthy cluster", or ctx ends (at the latest after reconfigTimeout).
// etcd refuses membership changes until the local member has been
// connected to its peers for a few seconds.
func retryUnhealthy(ctx context.Context, op func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, reconfigTimeout)
	defer cancel()
	for {
		octx, cancel := opContext(ctx)
		err := op(octx)
		cancel()
		if err == nil || !isUnhealthy(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func isUnhealthy(err error) bool {
	return errors.Is(err, etcderr.ErrUnhealthy) || errors.Is(err, etcderr.ErrNotEnoughStartedMembers) ||
		strings.Contains(err.Error(), "unhealthy cluster") || strings.Contains(err.Error(), "not enough started members")
}
