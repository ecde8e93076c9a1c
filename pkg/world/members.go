package world

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
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

// memberIDs maps member names to IDs, for membership changes.
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
		var id uint64
		fmt.Sscanf(m.ID, "%x", &id)
		err := retryUnhealthy(ctx, func(ctx context.Context) error {
			_, err := c.cli.MemberRemove(ctx, id)
			return err
		})
		if err != nil {
			return fmt.Errorf("removing member %s: %v", nameOrID, err)
		}
		return nil
	}
	return fmt.Errorf("no member named %s", nameOrID)
}
