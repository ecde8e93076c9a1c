package mgmtcluster

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mgmtpipe/mgmt/pkg/world"
)

type statusCmd struct {
	JSON bool `name:"json" help:"Print JSON instead of a table."`
}

func (s *statusCmd) run(e *env) error {
	c, err := e.connect()
	if err != nil {
		return err
	}
	defer c.Close()
	ms, err := c.Status(e.ctx, e.conn.Timeout)
	if err != nil {
		return err
	}
	if s.JSON {
		return writeJSON(e.stdout, ms)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tID\tCLIENT URLS\tHEALTHY\tLEADER\tVERSION\tDB SIZE\tERROR")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%v\t%v\t%s\t%d\t%s\n", orDash(m.Name), m.ID,
			orDash(strings.Join(m.ClientURLs, ",")), m.Healthy, m.Leader, orDash(m.Version), m.DBSize, m.Error)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range ms {
		if !m.Healthy {
			return fmt.Errorf("member %s is unhealthy", orDash(m.Name))
		}
	}
	return nil
}

type membersCmd struct {
	JSON     bool `name:"json" help:"Print JSON instead of a table."`
	Standbys bool `help:"Also list the standby hosts beyond the ideal size."`
}

func (m *membersCmd) run(e *env) error {
	c, err := e.connect()
	if err != nil {
		return err
	}
	defer c.Close()
	ms, err := c.Members(e.ctx)
	if err != nil {
		return err
	}
	if m.Standbys {
		sb, err := c.Standbys(e.ctx)
		if err != nil {
			return err
		}
		ms = append(ms, sb...)
	}
	if m.JSON {
		return writeJSON(e.stdout, ms)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tROLE\tID\tPEER URLS\tCLIENT URLS")
	for _, x := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", orDash(x.Name), role(x), orDash(x.ID), orDash(strings.Join(x.PeerURLs, ",")),
			orDash(strings.Join(x.ClientURLs, ",")))
	}
	return tw.Flush()
}

func role(m *world.Member) string {
	switch {
	case m.Standby:
		return "standby"
	case m.Learner:
		return "learner"
	case len(m.ClientURLs) == 0:
		return "joining"
	}
	return "member"
}

type getCmd struct {
	Key string `arg:"" help:"Key relative to the namespace; with --prefix, / lists the whole namespace."`
	// Not MGMT_PREFIX: that is the state directory of the other tools
	// (and of run), a path, not a yes or no.
	Prefix bool `help:"Print every key under KEY as KEY<TAB>VALUE lines." env:"-"`
}

func (g *getCmd) run(e *env) error {
	k, err := world.RawKey(e.conn.Namespace, g.Key)
	if g.Prefix {
		k, err = world.RawPrefix(e.conn.Namespace, g.Key)
	}
	if err != nil {
		return err
	}
	c, err := e.connect()
	if err != nil {
		return err
	}
	defer c.Close()
	if g.Prefix {
		all, err := c.GetPrefix(e.ctx, k)
		if err != nil {
			return err
		}
		keys := make([]string, 0, len(all))
		for key := range all {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		for _, key := range keys {
			fmt.Fprintf(e.stdout, "%s\t%s\n", c.RelKey(key), all[key])
		}
		return nil
	}
	v, ok, err := c.Get(e.ctx, k)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s: key not found", g.Key)
	}
	_, err = fmt.Fprintln(e.stdout, v)
	return err
}

type putCmd struct {
	Key   string `arg:"" help:"Key relative to the namespace."`
	Value string `arg:"" help:"Value; - reads it from stdin."`
}

func (p *putCmd) run(e *env) error {
	v := p.Value
	if v == "-" {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return err
		}
		v = string(b)
	}
	k, err := world.RawKey(e.conn.Namespace, p.Key)
	if err != nil {
		return err
	}
	c, err := e.connect()
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Put(e.ctx, k, v)
}

type delCmd struct {
	Key string `arg:"" help:"Key relative to the namespace."`
}

func (d *delCmd) run(e *env) error {
	k, err := world.RawKey(e.conn.Namespace, d.Key)
	if err != nil {
		return err
	}
	c, err := e.connect()
	if err != nil {
		return err
	}
	defer c.Close()
	ok, err := c.Delete(e.ctx, k)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s: key not found", d.Key)
	}
	return nil
}

type removeCmd struct {
	Member string `arg:"" help:"Name or ID of the member."`
}

func (r *removeCmd) run(e *env) error {
	c, err := e.connect()
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(e.ctx, removeTimeout)
	defer cancel()
	return c.RemoveMember(ctx, r.Member)
}

// removeTimeout bounds a member's removal, which etcd refuses for a few
// seconds after the cluster changed.
const removeTimeout = 30 * time.Second

type certsCmd struct {
	Names []string `arg:"" help:"Names: host names, or with --role member or admin, names of members or operators."`
	Role  string   `help:"What the certificates are for: host (the tools on that host), member (mgmt-cluster run; root in the cluster) or admin (an operator; root in the cluster, keep it off the hosts)." enum:"host,member,admin" default:"host"`
	Dir   string   `help:"Directory for ca.crt, ca.key and NAME.crt, NAME.key (member/NAME.*, admin/NAME.* for those roles; an existing CA is reused)." default:"." type:"path"`
	SAN   []string `name:"san" help:"Extra DNS names or IP addresses a member serves on." placeholder:"NAME"`
	Days  int      `help:"Validity in days." default:"825"`
}

func (c *certsCmd) run(e *env) error {
	if c.Days < 1 {
		return fmt.Errorf("--days must be positive, got %d", c.Days)
	}
	if len(c.SAN) > 0 && c.Role != world.RoleMember {
		return fmt.Errorf("--san names where a member serves; a %s certificate serves nothing", c.Role)
	}
	files, err := world.GenerateCerts(c.Dir, c.Role, c.Names, c.SAN, time.Duration(c.Days)*24*time.Hour)
	if err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintln(e.stdout, f)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
