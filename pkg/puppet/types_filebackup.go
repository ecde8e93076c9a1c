package puppet

import (
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// fileBackup translates backup (of a file, or of the file a concat_file
// generates): false is no backup; 'puppet', Puppet's default local
// filebucket, is the file kind's backup "puppet", which stores old
// contents in the clientbucketdir of the applying host's Puppet (with the
// puppet.conf of the compilation, if one was given), laid out by its
// digest_algorithm, as Puppet applying the resource there would. Nothing
// is asked of Puppet here: the file kind resolves the bucket when it
// first backs something up. A filebucket the
// catalog declares (a server's, or another directory), a backup suffix,
// and a backup of what a directory resource or force would replace fall
// back.
func fileBackup(t *tr, k string, v any) {
	if b, ok := boolValue(v); ok && !b {
		return
	}
	switch {
	case v != "puppet":
		t.fallbackValue(k, v)
	case t.opts.declaresBucket:
		t.fallback("backup => 'puppet' with a filebucket of that name in the catalog")
	case truthyParam(t.params["force"]):
		t.fallback("backup with force: Puppet backs up the files of a directory it replaces")
	case scalar(t.params["ensure"]) == "directory" || scalar(t.params["ensure"]) == "link" || strings.HasPrefix(scalar(t.params["ensure"]), "/"):
		t.fallback("backup of a directory or link resource: Puppet backs up what it replaces")
	default:
		t.out["backup"] = "puppet"
		if t.opts.Puppet.Conf != "" {
			t.out["backup_puppetconf"] = t.opts.Puppet.Conf
		}
	}
}

// fileValidateCmd translates validate_cmd, which the file kind runs as
// Puppet does. Puppet puts the temporary file's path in the command with
// Ruby's gsub, which reads backslashes in it: a path with one falls back.
func fileValidateCmd(t *tr, k string, v any) {
	s, ok := v.(string)
	if !ok || s == "" {
		t.fallbackValue(k, v)
		return
	}
	if strings.Contains(t.v.Name, `\`) {
		t.fallback("validate_cmd for a path with a backslash")
		return
	}
	t.out["validate_cmd"] = s
}

// declaresBucket reports whether the catalog declares the filebucket
// named puppet, which then replaces Puppet's default local one.
func declaresBucket(c *catalog.Catalog) bool {
	for _, r := range c.Resources {
		if r.Type == "Filebucket" && r.Title == "puppet" {
			return true
		}
	}
	return false
}
