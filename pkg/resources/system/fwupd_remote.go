package system

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mgmtpipe/mgmt/internal/fwupd"
	"github.com/mgmtpipe/mgmt/pkg/engine"
	"github.com/mgmtpipe/mgmt/pkg/engine/traits"
)

// FwupdRemoteRes enables or disables one fwupd remote and keeps its
// metadata fresh. See the package documentation.
type FwupdRemoteRes struct {
	traits.Base
	traits.Edgeable
	fwupdBase

	// Enabled enables or disables the remote; absent leaves it alone.
	Enabled *bool `lang:"enabled" yaml:"enabled"`
	// RefreshAge is the age (a Go duration, "24h") past which the
	// remote's metadata is downloaded again; empty never downloads it.
	RefreshAge string `lang:"refresh_age" yaml:"refresh_age"`
}

// Default returns a fwupd:remote resource.
func (r *FwupdRemoteRes) Default() engine.Res { return &FwupdRemoteRes{} }

func (r *FwupdRemoteRes) age() time.Duration {
	d, _ := time.ParseDuration(r.RefreshAge)
	return d
}

// Validate checks that something is managed, and the refresh age.
func (r *FwupdRemoteRes) Validate() error {
	if r.Name() == "" || strings.ContainsAny(r.Name(), "/ \t\n\x00") {
		return fmt.Errorf("invalid remote id %q", r.Name())
	}
	if r.Enabled == nil && r.RefreshAge == "" {
		return fmt.Errorf("neither enabled nor refresh_age is set: nothing to manage")
	}
	if r.RefreshAge != "" {
		d, err := time.ParseDuration(r.RefreshAge)
		if err != nil || d <= 0 {
			return fmt.Errorf("refresh_age %q: want a positive duration such as 24h", r.RefreshAge)
		}
		if r.Enabled != nil && !*r.Enabled {
			return fmt.Errorf("refresh_age is set on a remote kept disabled")
		}
	}
	return nil
}

// Watch reports the daemon's Changed signal and its restarts, and ticks
// every half refresh age so stale metadata is seen in time.
func (r *FwupdRemoteRes) Watch(ctx context.Context) error {
	return r.watch(ctx, func(sig *dbus.Signal) bool {
		return sig.Name == fwupd.Interface+".Changed" || !strings.HasPrefix(sig.Name, fwupd.Interface+".")
	}, r.age()/2)
}

// CheckApply sets Enabled, then downloads the metadata when it is older
// than the refresh age.
func (r *FwupdRemoteRes) CheckApply(ctx context.Context, apply bool) (bool, error) {
	c, conn, err := r.client(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	remotes, err := c.Remotes(ctx)
	if err != nil {
		return false, err
	}
	i := slices.IndexFunc(remotes, func(rm fwupd.Remote) bool { return rm.ID == r.Name() })
	if i < 0 {
		return false, fmt.Errorf("fwupd has no remote %s", r.Name())
	}
	rm := remotes[i]
	ok := true
	if r.Enabled != nil && rm.Enabled != *r.Enabled {
		ok = false
		if !apply {
			return false, nil
		}
		r.logf("%s: enabled %v", r, *r.Enabled)
		if err := c.ModifyRemote(ctx, rm.ID, "Enabled", fmt.Sprint(*r.Enabled)); err != nil {
			return false, err
		}
		rm.Enabled = *r.Enabled
	}
	age := r.age()
	if age == 0 || !rm.Enabled || rm.Modified != 0 && time.Since(time.Unix(int64(rm.Modified), 0)) < age {
		return ok, nil
	}
	if !apply {
		return false, nil
	}
	return false, r.refresh(ctx, c, rm)
}

// refresh downloads the remote's metadata and its signature (the
// metadata URI with ".jcat" added) and hands both to the daemon, which
// checks the signature.
func (r *FwupdRemoteRes) refresh(ctx context.Context, c *fwupd.Client, rm fwupd.Remote) error {
	if rm.MetadataURI == "" {
		return fmt.Errorf("remote %s has no metadata URI to refresh from", rm.ID)
	}
	r.logf("%s: refreshing the metadata from %s", r, rm.MetadataURI)
	data, err := fetch(ctx, rm.MetadataURI)
	if err != nil {
		return err
	}
	defer data.Close()
	sig, err := fetch(ctx, rm.MetadataURI+".jcat")
	if err != nil {
		return err
	}
	defer sig.Close()
	return c.UpdateMetadata(ctx, rm.ID, data, sig)
}

// Cmp compares two fwupd:remote resources.
func (r *FwupdRemoteRes) Cmp(other engine.Res) error {
	o, ok := other.(*FwupdRemoteRes)
	if !ok {
		return fmt.Errorf("not a fwupd:remote resource")
	}
	if (r.Enabled == nil) != (o.Enabled == nil) || r.Enabled != nil && *r.Enabled != *o.Enabled ||
		r.age() != o.age() || r.Bus != o.Bus {
		return fmt.Errorf("enabled or refresh_age differ")
	}
	return nil
}

// UIDs identifies the remote.
func (r *FwupdRemoteRes) UIDs() []engine.ResUID {
	return []engine.ResUID{&engine.BaseUID{Kind: "fwupd:remote", Name: r.Name()}}
}

// AutoEdges puts the remote after the file resource of its configuration
// file and after the svc resource of the daemon.
func (r *FwupdRemoteRes) AutoEdges() (engine.AutoEdge, error) {
	return &uidBatches{batches: [][]engine.ResUID{
		{&engine.BaseUID{Kind: "file", Name: "/etc/fwupd/remotes.d/" + r.Name() + ".conf"}},
		{&engine.BaseUID{Kind: "svc", Name: "fwupd"}, &engine.BaseUID{Kind: "svc", Name: "fwupd.service"}},
	}}, nil
}

// maxFirmware bounds what a download may hold.
const maxFirmware = 1 << 30

// fetch opens a URI (http, https, file or an absolute path) as an
// unlinked temporary file holding its content, read from the start.
func fetch(ctx context.Context, uri string) (*os.File, error) {
	var src io.ReadCloser
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%q: %v", uri, err)
	case u.Scheme == "http" || u.Scheme == "https":
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, uri, nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, fmt.Errorf("GET %s: %s", uri, resp.Status)
		}
		src = resp.Body
	case u.Scheme == "file" || u.Scheme == "" && strings.HasPrefix(uri, "/"):
		p := uri
		if u.Scheme == "file" {
			p = u.Path
		}
		if src, err = os.Open(p); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("%q: want an http, https or file URI, or an absolute path", uri)
	}
	defer src.Close()
	f, err := os.CreateTemp("", "mgmt-fwupd-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	n, err := io.Copy(f, io.LimitReader(src, maxFirmware+1))
	if err == nil && n > maxFirmware {
		err = fmt.Errorf("%s is larger than %d bytes", uri, maxFirmware)
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("downloading %s: %v", uri, err)
	}
	return f, nil
}

// releaseURI returns where a release's archive is: its first location,
// moved below the remote's firmware base URI when it has one, or read
// relative to the metadata URI (a local remote's metadata file) when it
// is relative.
func releaseURI(rel fwupd.Release, rm fwupd.Remote) (string, error) {
	if len(rel.Locations) == 0 {
		return "", fmt.Errorf("release %s has no location", rel.Version)
	}
	loc := rel.Locations[0]
	if rm.FirmwareBaseURI != "" {
		return strings.TrimSuffix(rm.FirmwareBaseURI, "/") + "/" + path.Base(loc), nil
	}
	if u, err := url.Parse(loc); err == nil && (u.Scheme != "" || strings.HasPrefix(loc, "/")) {
		return loc, nil
	}
	meta := rm.MetadataURI
	if meta == "" && strings.HasPrefix(rm.Cache, "/") {
		meta = "file://" + rm.Cache
	}
	base, err := url.Parse(meta)
	if err != nil || meta == "" {
		return "", fmt.Errorf("release %s: relative location %q and no metadata URI to read it against", rel.Version, loc)
	}
	ref, err := url.Parse(loc)
	if err != nil {
		return "", err
	}
	return base.ResolveReference(ref).String(), nil
}

// verify checks f against the strongest checksums the release lists
// (SHA-256 over SHA-1); a release without any passes.
func verify(f *os.File, sums []string) error {
	var want []string
	var h hash.Hash
	for _, n := range []int{64, 40} {
		for _, s := range sums {
			if len(s) == n {
				want = append(want, strings.ToLower(s))
			}
		}
		if len(want) > 0 {
			h = map[int]hash.Hash{64: sha256.New(), 40: sha1.New()}[n]
			break
		}
	}
	if h == nil {
		return nil
	}
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); !slices.Contains(want, got) {
		return fmt.Errorf("checksum %s, want one of %q", got, want)
	}
	return nil
}

// installRelease downloads a release, checks it and installs it.
func installRelease(ctx context.Context, c *fwupd.Client, d fwupd.Device, rel fwupd.Release, opts map[string]dbus.Variant) error {
	remotes, err := c.Remotes(ctx)
	if err != nil {
		return err
	}
	var rm fwupd.Remote
	if i := slices.IndexFunc(remotes, func(x fwupd.Remote) bool { return x.ID == rel.RemoteID }); i >= 0 {
		rm = remotes[i]
	}
	uri, err := releaseURI(rel, rm)
	if err != nil {
		return err
	}
	f, err := fetch(ctx, uri)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := verify(f, rel.Checksums); err != nil {
		return fmt.Errorf("release %s from %s: %v", rel.Version, uri, err)
	}
	if err := c.Install(ctx, d.ID, f, opts); err != nil {
		return fmt.Errorf("device %s: installing %s: %v", d.ID, rel.Version, err)
	}
	return nil
}
