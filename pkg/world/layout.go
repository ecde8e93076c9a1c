package world

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"github.com/mgmtpipe/mgmt/internal/statedir"
)

// A Layout names the files of the world a host keeps under a tool's state
// directory (the prefix). They all live in one directory, Dir, which is
// open to its owner only (mode 0700): the data directory of the member,
// its lock and published URL, the unix socket a member without TLS serves
// clients on, and the throw-away peer certificate of such a member (see
// PrivatePeer). Whoever can enter Dir can read and write the world, so
// nobody else may.
type Layout struct {
	Dir       string // PREFIX/world
	DataDir   string // Dir/server
	ClientURL string // unix://Dir/client.sock
	prefix    string
}

// PrefixLayout returns the layout under prefix, made absolute.
func PrefixLayout(prefix string) (Layout, error) {
	if prefix == "" {
		return Layout{}, fmt.Errorf("no prefix for the world's files")
	}
	abs, err := filepath.Abs(prefix)
	if err != nil {
		return Layout{}, err
	}
	dir := filepath.Join(abs, "world")
	lay := Layout{Dir: dir, DataDir: filepath.Join(dir, "server"), prefix: abs,
		ClientURL: "unix://" + filepath.Join(dir, "client.sock")}
	if err := CheckURLs([]string{lay.ClientURL}, false, false); err != nil {
		return Layout{}, fmt.Errorf("prefix %s: %v; use a shorter prefix", prefix, err)
	}
	return lay, nil
}

// URLFile returns the file where the member running in DataDir publishes
// its client URL.
func (l Layout) URLFile() string { return l.DataDir + ".url" }

// Prepare makes the prefix (see statedir.Prepare) and Dir, or checks that
// the existing Dir is a directory (not a symbolic link) owned by this
// process's user and closed to everybody else.
func (l Layout) Prepare() error {
	if err := statedir.Prepare(l.prefix); err != nil {
		return err
	}
	if err := os.Mkdir(l.Dir, 0o700); err == nil {
		if err := os.Chmod(l.Dir, 0o700); err != nil { // whatever the umask
			return err
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return err
	}
	return checkPrivateDir(l.Dir)
}

// CheckOldData refuses a member's data left under the layout of earlier
// versions (PREFIX/server) while DataDir has none: starting in DataDir
// would silently replace that world with a new, empty one.
func (l Layout) CheckOldData() error {
	if old := filepath.Join(l.prefix, "server"); HasData(old) && !HasData(l.DataDir) {
		return fmt.Errorf("%s holds a member's data from an earlier version: stop the tools using it and move it to %s", old, l.DataDir)
	}
	return nil
}

// PrivatePeer returns the peer URL and TLS files of a member that is the
// only one of its cluster and has no TLS of its own. etcd always listens
// for peers (and takes a unix socket there only as a path relative to the
// working directory), so the member listens on a free loopback port; but
// it asks every peer for a client certificate signed by a CA made for this
// run alone, whose certificate and key only the owner of Dir can read.
// Nobody else gets through, and no peer ever needs to.
//
// The port is free when picked, not reserved: another process may take it
// before etcd listens on it. A member started with ServerConfig.PeerPicked
// then tries again on another port.
func (l Layout) PrivatePeer() (string, *TLSFiles, error) {
	t, err := writePeerTLS(l.Dir)
	if err != nil {
		return "", nil, err
	}
	peer, err := pickPeerURL()
	if err != nil {
		return "", nil, err
	}
	return peer, t, nil
}

// pickPeerURL returns an https URL on a loopback port the kernel found
// free, from its range of ephemeral ports. A port below that range could
// not be taken by the local end of an outgoing connection, but it may be
// the fixed port of a service that starts later and would then fail: a
// port of the ephemeral range is already exposed to that race, and the
// kernel leaves out of it the ports reserved by the administrator
// (ip_local_reserved_ports).
func pickPeerURL() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return "https://" + ln.Addr().String(), nil
}

// checkPrivateDir reports a dir that is not a directory, is owned by
// another user, or lets other users in.
func checkPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no owner information", dir)
	}
	if int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("%s is owned by uid %d, not by this user (uid %d): refusing to trust it", dir, st.Uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s has mode %04o, which lets other users in; want 0700", dir, fi.Mode().Perm())
	}
	return nil
}
