package world

import (
	"context"
	"strings"

	"go.etcd.io/etcd/api/v3/mvccpb"
)

// StrGet returns the plain string stored under key and whether it exists.
func (c *Client) StrGet(ctx context.Context, key string) (string, bool, error) {
	if err := checkKey(key); err != nil {
		return "", false, err
	}
	return c.Get(ctx, c.ns+stringsDir+key)
}

// StrSet stores the plain string value under key.
func (c *Client) StrSet(ctx context.Context, key, value string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	return c.Put(ctx, c.ns+stringsDir+key, value)
}

// StrDel removes the plain string under key.
func (c *Client) StrDel(ctx context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	_, err := c.Delete(ctx, c.ns+stringsDir+key)
	return err
}

// StrWatch notifies on changes of the plain string under key (see the
// package comment for the channel's protocol).
func (c *Client) StrWatch(ctx context.Context, key string) (<-chan error, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	return c.watch(ctx, c.ns+stringsDir+key, false), nil
}

// A mapEntry is one host's entry of a per-host map.
type mapEntry struct {
	host, value string
}

// mapEntries returns the client's tree of the per-host maps, starting it
// on first use: every host's entry of every namespace, grouped by
// namespace.
func (c *Client) mapEntries() *tree[mapEntry] {
	return startTree(c, &c.mapped, mappedDir, "mapped", func(kv *mvccpb.KeyValue) (string, mapEntry, bool) {
		host, ns, ok := strings.Cut(strings.TrimPrefix(string(kv.Key), c.ns+mappedDir), "/")
		if !ok || host == "" {
			return "", mapEntry{}, false
		}
		return ns, mapEntry{host: host, value: string(kv.Value)}, true
	})
}

// StrMapGet returns the per-host map of namespace: hostname → value. It
// reflects every write committed before the call, read from the client's
// tree of the per-host maps.
func (c *Client) StrMapGet(ctx context.Context, namespace string) (map[string]string, error) {
	if err := checkKey(namespace); err != nil {
		return nil, err
	}
	x := c.mapEntries()
	if err := x.await(ctx); err != nil {
		return nil, err
	}
	out := map[string]string{}
	x.view(func(_ map[string]string, groups map[string]map[string]mapEntry) {
		for _, e := range groups[namespace] {
			out[e.host] = e.value
		}
	})
	return out, nil
}

// StrMapSet stores value as this host's entry of namespace.
func (c *Client) StrMapSet(ctx context.Context, namespace, value string) error {
	if err := checkKey(namespace); err != nil {
		return err
	}
	return c.Put(ctx, c.strMapKey(namespace), value)
}

// StrMapGetHost returns this host's entry of namespace.
func (c *Client) StrMapGetHost(ctx context.Context, namespace string) (string, bool, error) {
	if err := checkKey(namespace); err != nil {
		return "", false, err
	}
	return c.Get(ctx, c.strMapKey(namespace))
}

// StrMapDel removes this host's entry of namespace.
func (c *Client) StrMapDel(ctx context.Context, namespace string) error {
	if err := checkKey(namespace); err != nil {
		return err
	}
	_, err := c.Delete(ctx, c.strMapKey(namespace))
	return err
}

// StrMapWatch notifies on changes of any host's entry of namespace (the
// entries of other namespaces wake nobody here).
func (c *Client) StrMapWatch(ctx context.Context, namespace string) (<-chan error, error) {
	if err := checkKey(namespace); err != nil {
		return nil, err
	}
	return c.mapEntries().subscribe(ctx, namespace, false), nil
}

func (c *Client) strMapKey(namespace string) string {
	return c.ns + mappedDir + c.hostname + "/" + namespace
}
