package world

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// Roles of the certificates of a TLS cluster. The common name (CN) of a
// certificate the cluster's CA signed is the identity etcd knows its
// holder by, and the identity's role decides what it may do:
//
//   - a host (CN = its host name, as the tools use it) reads the world
//     and writes only its own keys and the shared ones (hostPermissions);
//   - a member (CN = "member/NAME") runs an etcd member: it must add and
//     remove members, so it has etcd's root role;
//   - an admin (CN = "admin/NAME") is an operator: root role too, for
//     membership and for keys outside any host's own.
//
// The CN "root" is etcd's own superuser and is never issued.
const (
	RoleHost   = "host"
	RoleMember = "member"
	RoleAdmin  = "admin"
)

// MemberSAN is a DNS name that only member certificates carry: members
// accept peer connections only from certificates valid for it, so a host's
// or an admin's certificate cannot speak raft to them. It is under the
// reserved .invalid domain, so it names no real server.
const MemberSAN = "mgmt-member.invalid"

// rootUser is etcd's superuser and the name of its all-powerful role.
const rootUser = "root"

// hostRolePrefix starts the name of a host's etcd role.
const hostRolePrefix = "host/"

// Identity returns the role and name of the certificate common name cn,
// or ok false when cn is none of the identities (it then gets no rights).
func Identity(cn string) (role, name string, ok bool) {
	if r, n, found := strings.Cut(cn, "/"); found {
		if (r == RoleMember || r == RoleAdmin) && checkHost(n) == nil {
			return r, n, true
		}
		return "", "", false
	}
	if cn == rootUser || checkHost(cn) != nil {
		return "", "", false
	}
	return RoleHost, cn, true
}

// commonName returns the common name of the identity of role and name.
func commonName(role, name string) string {
	if role == RoleHost {
		return name
	}
	return role + "/" + name
}

// CertCN returns the common name of the first certificate in the PEM file.
func CertCN(file string) (string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	blk, _ := pem.Decode(b)
	if blk == nil || blk.Type != "CERTIFICATE" {
		return "", fmt.Errorf("%s: no PEM certificate", file)
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		return "", fmt.Errorf("%s: %v", file, err)
	}
	return c.Subject.CommonName, nil
}

// certIdentity returns the role and name of the certificate in file.
func certIdentity(file string) (role, name string, err error) {
	cn, err := CertCN(file)
	if err != nil {
		return "", "", err
	}
	role, name, ok := Identity(cn)
	if !ok {
		return "", "", fmt.Errorf("%s: common name %q is no identity of the world (a host name, member/NAME or admin/NAME)", file, cn)
	}
	return role, name, nil
}

// etcdRole returns the etcd role of an identity.
func etcdRole(role, name string) string {
	if role == RoleHost {
		return hostRolePrefix + name
	}
	return rootUser
}

// A permission is a key range of an etcd role: a single key when end is
// empty.
type permission struct {
	key, end string
	perm     clientv3.PermissionType
}

// prefixPerm returns the permission over every key starting with p.
func prefixPerm(p string, perm clientv3.PermissionType) permission {
	return permission{p, clientv3.GetPrefixRangeEnd(p), perm}
}

// hostPermissions returns what host may do in namespace ns: read the whole
// namespace; read and write the shared plain strings and stored schedules;
// and otherwise write only its own keys: its entries of the per-host maps,
// its exports, its scheduler volunteering and its converged state.
func hostPermissions(ns, host string) []permission {
	rw := clientv3.PermissionType(clientv3.PermReadWrite)
	return []permission{
		prefixPerm(ns+"/", clientv3.PermissionType(clientv3.PermRead)),
		prefixPerm(ns+stringsDir, rw),
		prefixPerm(ns+schedDir, rw),
		prefixPerm(ns+mappedDir+host+"/", rw),
		prefixPerm(ns+exportsDir+host+"/", rw),
		prefixPerm(ns+schedHostDir+host+"/", rw),
		{ns + convergedDir + host, "", rw},
	}
}

// grantIdentity gives the etcd user cn its role, making user and role
// (with a host's permissions in namespace ns) as needed, through cli, a
// client with etcd's root role. What exists already is kept.
func grantIdentity(ctx context.Context, cli *clientv3.Client, ns, cn string) error {
	role, name, ok := Identity(cn)
	if !ok {
		return fmt.Errorf("common name %q is no identity of the world", cn)
	}
	er := etcdRole(role, name)
	if role == RoleHost {
		if _, err := cli.RoleAdd(ctx, er); err != nil && !errors.Is(err, rpctypes.ErrRoleAlreadyExist) {
			return fmt.Errorf("adding role %s: %v", er, err)
		}
		for _, p := range hostPermissions(ns, name) {
			if _, err := cli.RoleGrantPermission(ctx, er, p.key, p.end, p.perm); err != nil {
				return fmt.Errorf("granting %s to role %s: %v", p.key, er, err)
			}
		}
	}
	if _, err := cli.UserAddWithOptions(ctx, cn, "", &clientv3.UserAddOptions{NoPassword: true}); err != nil && !errors.Is(err, rpctypes.ErrUserAlreadyExist) {
		return fmt.Errorf("adding user %s: %v", cn, err)
	}
	if _, err := cli.UserGrantRole(ctx, cn, er); err != nil {
		return fmt.Errorf("granting role %s to user %s: %v", er, cn, err)
	}
	return nil
}

// enableAuth turns etcd's authentication on unless it is on already:
// etcd's root user (with no password: it can only be a certificate's CN,
// which is never issued) and self, the member's own identity, get the root
// role first.
func enableAuth(ctx context.Context, cli *clientv3.Client, ns, self string) error {
	st, err := cli.AuthStatus(ctx)
	if err != nil {
		return fmt.Errorf("authentication status: %v", err)
	}
	if st.Enabled {
		return nil
	}
	if _, err := cli.UserAddWithOptions(ctx, rootUser, "", &clientv3.UserAddOptions{NoPassword: true}); err != nil && !errors.Is(err, rpctypes.ErrUserAlreadyExist) {
		return fmt.Errorf("adding user root: %v", err)
	}
	if _, err := cli.UserGrantRole(ctx, rootUser, rootUser); err != nil {
		return fmt.Errorf("granting root its role: %v", err)
	}
	if err := grantIdentity(ctx, cli, ns, self); err != nil {
		return err
	}
	if _, err := cli.AuthEnable(ctx); err != nil {
		return fmt.Errorf("enabling authentication: %v", err)
	}
	return nil
}
