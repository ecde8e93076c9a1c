package testutil

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// FreePort returns a loopback port that was free a moment ago, taken
// below the kernel's range of ephemeral ports (ip_local_port_range), from
// which the kernel gives the local ports of outgoing connections: a port
// of that range, free when picked, can be taken by any connection a member
// or a host opens before the tool that is given it listens on it, and a
// member's peer port stays in the cluster's membership, so that it would
// never be free again for it (a member retried binding its peer port for
// two minutes once, held by another member's connection).
//
// A port is handed out once per test process: two picks a moment apart
// could find the same port free (the first not listened on yet), and two
// hosts of a test, or of two tests running in parallel, would then be given
// it (a cluster round failed once so, a member's client port being
// another's peer port).
func FreePort(t testing.TB) int {
	t.Helper()
	portsMu.Lock()
	defer portsMu.Unlock()
	low := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil {
				low = n
			}
		}
	}
	const from = 10000
	if low <= from+1000 {
		t.Fatalf("ip_local_port_range starts at %d: no room below it for the test's ports", low)
	}
	for range 1000 {
		port := from + rand.IntN(low-from)
		if handedOut[port] {
			continue
		}
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			continue
		}
		ln.Close()
		handedOut[port] = true
		return port
	}
	t.Fatalf("no free loopback port between %d and %d", from, low)
	return 0
}

var (
	portsMu   sync.Mutex
	handedOut = map[int]bool{} // the ports FreePort returned
)
