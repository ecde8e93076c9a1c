package world

import (
	"context"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"
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

// StrMapGet returns the per-host map of namespace: hostname → value.
func (c *Client) StrMapGet(ctx context.Context, namespace string) (map[string]string, error) {
	if err := checkKey(namespace); err != nil {
		return nil, err
	}
	prefix := c.ns + mappedDir
	ctx, cancel := opContext(ctx)
	defer cancel()
	r, err := c.cli.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, kv := range r.Kvs {
		host, ns, ok := strings.Cut(strings.TrimPrefix(string(kv.Key), prefix), "/")
		if ok && host != "" && ns == namespace {
			out[host] = string(kv.Value)
		}
	}
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

// StrMapWatch notifies on changes of any host's entry of namespace (and,
// since entries are kept by host, of other namespaces' entries too).
func (c *Client) StrMapWatch(ctx context.Context, namespace string) (<-chan error, error) {
	if err := checkKey(namespace); err != nil {
		return nil, err
	}
	return c.watch(ctx, c.ns+mappedDir, true), nil
}

func (c *Client) strMapKey(namespace string) string {
	return c.ns + mappedDir + c.hostname + "/" + namespace
}
