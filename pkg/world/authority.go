package world

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/etcdserver"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// An authority is the part of a TLS member that turns certificates into
// etcd users. etcd, with authentication on and client certificates
// required, takes the CN of a verified client certificate as the user
// name; the user must exist and its roles decide what it may do. The
// authority sees every request before etcd does: the first time a CN it
// has not seen arrives, it gives that user the role its identity calls
// for (see Identity and grantIdentity), acting as its own member's
// identity, which has the root role. So the CA that signs certificates is
// the only authority over who is who: a new host needs a certificate and
// nothing else.
//
// On a cluster without authentication yet (the first member of a new
// cluster), start turns it on; until then only the member itself is
// served, so that no request runs unauthenticated.
type authority struct {
	ns        string    // namespace hosts get their rights in
	self      string    // this member's CN
	tls       *TLSFiles // this member's identity
	endpoints []string  // this member's client URLs

	es    atomic.Pointer[etcdserver.EtcdServer]
	ready atomic.Bool // authentication is on

	mu    sync.Mutex      // serialises grants; guards known
	known map[string]bool // CNs whose user has its role

	cliMu sync.Mutex
	cli   *clientv3.Client // the member's own client, with its identity
}

// newAuthority returns the authority of the member of cfg, whose
// certificate must be a member's.
func newAuthority(cfg *ServerConfig) (*authority, error) {
	cn, err := CertCN(cfg.TLS.Cert)
	if err != nil {
		return nil, err
	}
	if role, _, _ := Identity(cn); role != RoleMember {
		return nil, fmt.Errorf("%s: a member needs a member certificate (CN member/NAME: mgmt-cluster certs --role member NAME), got CN %q", cfg.TLS.Cert, cn)
	}
	ns, err := normNamespace(cfg.Namespace)
	if err != nil {
		return nil, err
	}
	return &authority{ns: ns, self: cn, tls: cfg.TLS, endpoints: cfg.advClient(), known: map[string]bool{}}, nil
}

// serverOptions returns the interceptors that put the authority in front
// of etcd's gRPC services.
func (a *authority) serverOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := a.admit(ctx); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := a.admit(ss.Context()); err != nil {
				return err
			}
			return h(srv, ss)
		}),
	}
}

// start runs once the member serves: it turns authentication on if the
// cluster has none yet, and from then on admits every client.
func (a *authority) start(ctx context.Context, es *etcdserver.EtcdServer) error {
	a.es.Store(es)
	if !es.AuthStore().IsAuthEnabled() {
		cli, err := a.client()
		if err != nil {
			return err
		}
		err = retryUnhealthy(ctx, func(ctx context.Context) error { return enableAuth(ctx, cli, a.ns, a.self) })
		if err != nil {
			return err
		}
	}
	a.ready.Store(true)
	return nil
}

// admit lets a request through once its sender's user has its role.
func (a *authority) admit(ctx context.Context) error {
	cn := peerCN(ctx)
	if cn == a.self && cn != "" {
		return nil
	}
	es := a.es.Load()
	if !a.ready.Load() || es == nil {
		return status.Error(codes.Unavailable, "the member is setting up authentication; try again")
	}
	role, name, ok := Identity(cn)
	if !ok {
		return nil // no rights: etcd refuses what needs any
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.known[cn] {
		return nil
	}
	if !es.AuthStore().HasRole(cn, etcdRole(role, name)) {
		cli, err := a.client()
		if err != nil {
			return status.Errorf(codes.Unavailable, "granting %s its role: %v", cn, err)
		}
		if err := grantIdentity(ctx, cli, a.ns, cn); err != nil {
			return status.Errorf(codes.Unavailable, "granting %s its role: %v", cn, err)
		}
	}
	a.known[cn] = true
	return nil
}

// peerCN returns the common name of the verified client certificate of
// the request in ctx, as etcd reads it, or "".
func peerCN(ctx context.Context) string {
	p, ok := peer.FromContext(ctx)
	if !ok || p.AuthInfo == nil {
		return ""
	}
	ti, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok {
		return ""
	}
	for _, chain := range ti.State.VerifiedChains {
		if len(chain) > 0 {
			return chain[0].Subject.CommonName
		}
	}
	return ""
}

// client returns the member's own client, connecting on first use.
func (a *authority) client() (*clientv3.Client, error) {
	a.cliMu.Lock()
	defer a.cliMu.Unlock()
	if a.cli != nil {
		return a.cli, nil
	}
	tc, err := a.tls.ClientConfig()
	if err != nil {
		return nil, err
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: a.endpoints, DialTimeout: 5 * time.Second, TLS: tc, Logger: zap.NewNop()})
	if err != nil {
		return nil, err
	}
	a.cli = cli
	return cli, nil
}

// close closes the member's own client.
func (a *authority) close() {
	a.cliMu.Lock()
	defer a.cliMu.Unlock()
	if a.cli != nil {
		a.cli.Close()
		a.cli = nil
	}
}
