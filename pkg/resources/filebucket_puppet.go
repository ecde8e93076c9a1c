package resources

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// BackupPuppet is the file kind's backup that stores old contents in the
// local Puppet's own file bucket.
const BackupPuppet = "puppet"

// bucket returns the file bucket directory and digest of the resource's
// backup, asking the local Puppet for them when backup is "puppet".
func (obj *FileRes) bucket(ctx context.Context) (dir, digest string, err error) {
	if obj.rare().Backup != BackupPuppet {
		return obj.rare().Backup, obj.backupDigest(), nil
	}
	b, err := localPuppetBucket(ctx, obj.rare().BackupPuppetConf)
	if err != nil {
		return "", "", fmt.Errorf("Puppet's file bucket: %w", err)
	}
	return b.dir, b.digest, nil
}

// A puppetBucket is the local Puppet's file bucket: its clientbucketdir
// and digest_algorithm.
type puppetBucket struct{ dir, digest string }

// A bucketQuery is one question to the local Puppet about its bucket;
// done is closed once b and err are set.
type bucketQuery struct {
	done chan struct{}
	b    puppetBucket
	err  error
}

// puppetBuckets holds, per puppet.conf ("" for Puppet's own), what the
// local Puppet answered or is answering. Asking starts Ruby and Puppet
// (over a second of CPU time), so a process asks at most once per
// puppet.conf, and only when a file is really backed up; resources that
// need the answer meanwhile wait for it. A failed question is forgotten,
// so the resource's next try asks again.
var puppetBuckets = struct {
	mu sync.Mutex
	m  map[string]*bucketQuery
}{m: map[string]*bucketQuery{}}

// localPuppetBucket returns the local Puppet's bucket for the puppet.conf
// conf, asking Puppet the first time.
func localPuppetBucket(ctx context.Context, conf string) (puppetBucket, error) {
	puppetBuckets.mu.Lock()
	q, asked := puppetBuckets.m[conf]
	if !asked {
		q = &bucketQuery{done: make(chan struct{})}
		puppetBuckets.m[conf] = q
	}
	puppetBuckets.mu.Unlock()
	if !asked {
		q.b, q.err = askPuppetBucket(ctx, conf)
		if q.err != nil {
			puppetBuckets.mu.Lock()
			delete(puppetBuckets.m, conf)
			puppetBuckets.mu.Unlock()
		}
		close(q.done)
	}
	select {
	case <-q.done:
		return q.b, q.err
	case <-ctx.Done():
		return puppetBucket{}, ctx.Err()
	}
}

// askPuppetBucket runs puppet config print for the bucket settings, in
// the section puppet apply reads (user, then main), as Puppet applying
// the file here would see them.
func askPuppetBucket(ctx context.Context, conf string) (puppetBucket, error) {
	puppet, err := exec.LookPath("puppet")
	if err != nil {
		return puppetBucket{}, fmt.Errorf("Puppet is not installed: %w", err)
	}
	args := []string{"config", "print", "clientbucketdir", "digest_algorithm", "--section", "user"}
	if conf != "" {
		args = append(args, "--config", conf)
	}
	cmd := exec.CommandContext(ctx, puppet, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = killGrace
	out, err := cmd.Output()
	if err != nil {
		return puppetBucket{}, fmt.Errorf("puppet %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return parsePuppetBucket(string(out))
}

// parsePuppetBucket reads the "name = value" lines puppet config print
// writes for clientbucketdir and digest_algorithm.
func parsePuppetBucket(out string) (puppetBucket, error) {
	var b puppetBucket
	for _, line := range strings.Split(out, "\n") {
		k, v, ok := strings.Cut(line, " = ")
		if !ok {
			continue
		}
		switch v = strings.TrimSpace(v); strings.TrimSpace(k) {
		case "clientbucketdir":
			b.dir = v
		case "digest_algorithm":
			b.digest = v
		}
	}
	switch {
	case b.dir == "" || b.digest == "":
		return b, fmt.Errorf("puppet config print gave no clientbucketdir or digest_algorithm: %q", out)
	case !filepath.IsAbs(b.dir) || filepath.Clean(b.dir) != b.dir:
		return b, fmt.Errorf("Puppet's clientbucketdir %q is not a clean absolute directory", b.dir)
	case bucketDigests[b.digest] == nil:
		return b, fmt.Errorf("Puppet's digest_algorithm %q is not md5, sha224, sha256, sha384 or sha512", b.digest)
	}
	return b, nil
}
