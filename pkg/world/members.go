package world

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// A Member is one etcd member of the cluster, with its health as seen from
// this client when Status filled it.
type Member struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"` // the member's hostname; empty until it started
	PeerURLs   []string `json:"peer_urls"`
	ClientURLs []string `json:"client_urls"`
	Learner    bool     `json:"learner,omitempty"`
	// Standby marks a host beyond the ideal cluster size: not an etcd
	// member, it proxies its client URLs to the members.
	Standby bool `json:"standby,omitempty"`

	Healthy  bool   `json:"healthy"`
	Leader   bool   `json:"leader,omitempty"`
	Version  string `json:"version,omitempty"`
	DBSize   int64  `json:"db_size,omitempty"`
	RaftTerm uint64 `json:"raft_term,omitempty"`
	Error    string `json:"error,omitempty"`
}

// Members returns the cluster's members sorted by name, without health.
func (c *Client) Members(ctx context.Context) ([]*Member, error) {
	octx, cancel := opContext(ctx)
	defer cancel()
	r, err := c.cli.MemberList(octx)
	if err != nil {
		return nil, err
	}
	var out []*Member
	for _, m := range r.Members {
		out = append(out, &Member{
			ID:         fmt.Sprintf("%x", m.ID),
			Name:       m.Name,
			PeerURLs:   m.PeerURLs,
			ClientURLs: m.ClientURLs,
			Learner:    m.IsLearner,
		})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Status returns the members with their health: each member is asked
// directly on its first client URL, within timeout.
func (c *Client) Status(ctx context.Context, timeout time.Duration) ([]*Member, error) {
	ms, err := c.Members(ctx)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	for _, m := range ms {
		if len(m.ClientURLs) == 0 {
			m.Error = "not started"
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			st, err := c.cli.Status(sctx, m.ClientURLs[0])
			if err != nil {
				m.Error = err.Error()
				return
			}
			m.Healthy = len(st.Errors) == 0
			if !m.Healthy {
				m.Error = fmt.Sprint(st.Errors)
			}
			m.Leader = st.Leader == st.Header.MemberId
			m.Version, m.DBSize, m.RaftTerm = st.Version, st.DbSize, st.RaftTerm
		}()
	}
	wg.Wait()
	return ms, nil
}

// memberList returns the cluster's members, read linearizably.
func memberList(ctx context.Context, cli *clientv3.Client) (*clientv3.MemberListResponse, error) {
	octx, cancel := opContext(ctx)
	defer cancel()
	return cli.MemberList(octx)
}

// standbyDir holds one key per standby host, on its lease.
const standbyDir = "/cluster/standby/"

// setStandby records this host as a standby serving clientURLs, until its
// lease ends (promotion or death).
func (c *Client) setStandby(ctx context.Context, clientURLs []string) error {
	lease, err := c.hostLease(ctx)
	if err != nil {
		return err
	}
	octx, cancel := opContext(ctx)
	defer cancel()
	_, err = c.cli.Put(octx, c.ns+standbyDir+c.hostname, strings.Join(clientURLs, ","), clientv3.WithLease(lease))
	return err
}

// Standbys returns the standby hosts, sorted by name.
func (c *Client) Standbys(ctx context.Context) ([]*Member, error) {
	all, err := c.GetPrefix(ctx, c.ns+standbyDir)
	if err != nil {
		return nil, err
	}
	var out []*Member
	for k, v := range all {
		out = append(out, &Member{Name: strings.TrimPrefix(k, c.ns+standbyDir), ClientURLs: strings.Split(v, ","), Standby: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// RemoveMember removes the member named, or with the ID, nameOrID. Under
// TLS only an identity with etcd's root role (an admin or a member) may.
// etcd refuses membership changes while the cluster has just changed
// ("unhealthy cluster"): it tries again until ctx is done.
func (c *Client) RemoveMember(ctx context.Context, nameOrID string) error {
	ms, err := c.Members(ctx)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.Name != nameOrID && m.ID != nameOrID {
			continue
		}
		if err := c.removeID(ctx, m.ID); err != nil {
			return fmt.Errorf("removing member %s: %v", nameOrID, err)
		}
		return nil
	}
	return fmt.Errorf("no member named %s", nameOrID)
}

// removeID removes the member with the hexadecimal ID id, trying again
// while etcd calls the cluster unhealthy.
func (c *Client) removeID(ctx context.Context, id string) error {
	var n uint64
	if _, err := fmt.Sscanf(id, "%x", &n); err != nil {
		return fmt.Errorf("member ID %q: %v", id, err)
	}
	return retryUnhealthy(ctx, func(ctx context.Context) error {
		_, err := c.cli.MemberRemove(ctx, n)
		return err
	})
}

// memberLockTTL is the time to live, in seconds, of the membership lock's
// session: how long the lock outlives a holder that died.
const memberLockTTL = 10

// A memberLock is the cluster-wide lock that serializes membership
// changes made by the hosts: a standby's replacement of a dead member and
// its join, and a member's leave. Each holder checks the membership again
// once it holds the lock. Safety does not rest on the lock alone (a
// holder stalled beyond the TTL loses it): etcd admits one learner at a
// time and promotion rechecks the voter count (see Server.promote), and it
// refuses to remove the last voter or a member whose removal breaks the
// quorum.
type memberLock struct {
	sess   *concurrency.Session
	mu     *concurrency.Mutex
	stop   context.CancelFunc // ends the session's keep alive
	client *Client            // closed on release, when set
}

// lockMembership takes the membership lock, waiting at most wait. A
// failed attempt (a request timed out while the cluster changed leader,
// or the session's lease was lost while the cluster had no quorum) is
// tried again until then; the error says why the last attempt failed.
func (c *Client) lockMembership(ctx context.Context, wait time.Duration) (*memberLock, error) {
	lctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		l, err := c.tryLockMembership(lctx)
		if err == nil {
			return l, nil
		}
		select {
		case <-lctx.Done():
			return nil, fmt.Errorf("membership lock: %v", err)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// tryLockMembership makes one attempt to take the lock before ctx ends.
func (c *Client) tryLockMembership(ctx context.Context) (*memberLock, error) {
	octx, cancel := opContext(ctx)
	g, err := c.cli.Grant(octx, memberLockTTL)
	cancel()
	if err != nil {
		return nil, err
	}
	// The session outlives ctx: it ends with release.
	sctx, stop := context.WithCancel(context.Background())
	sess, err := concurrency.NewSession(c.cli, concurrency.WithLease(g.ID), concurrency.WithTTL(memberLockTTL), concurrency.WithContext(sctx))
	if err != nil {
		stop()
		return nil, err
	}
	l := &memberLock{sess: sess, mu: concurrency.NewMutex(sess, c.ns+"/cluster/promote"), stop: stop}
	wctx, cancel := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() { // a lost session ends the wait at once
		defer close(watched)
		select {
		case <-sess.Done():
			cancel()
		case <-wctx.Done():
		}
	}()
	err = l.mu.Lock(wctx)
	cancel()
	<-watched
	if err == nil && !sessionAlive(sess) {
		err = concurrency.ErrSessionExpired
	}
	if err != nil {
		l.release()
		return nil, err
	}
	return l, nil
}

func sessionAlive(sess *concurrency.Session) bool {
	select {
	case <-sess.Done():
		return false
	default:
		return true
	}
}

// held reports whether the lock is still held: its key is still there
// (linearizable read), so no one else holds it.
func (l *memberLock) held(ctx context.Context) bool {
	octx, cancel := opContext(ctx)
	defer cancel()
	r, err := l.sess.Client().Txn(octx).If(l.mu.IsOwner()).Commit()
	return err == nil && r.Succeeded
}

// release unlocks and ends the session (revoking its lease).
func (l *memberLock) release() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	l.mu.Unlock(ctx)
	l.sess.Orphan()
	l.sess.Client().Revoke(ctx, l.sess.Lease())
	l.stop()
	if l.client != nil {
		l.client.Close()
	}
}
