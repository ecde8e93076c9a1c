package puppet

import (
	"errors"
	"strings"
	"testing"
)

// facterNoise is what Puppet 8 prints on stderr at every compilation on a
// host where Facter cannot read some of what it looks at, whether the
// compilation fails or not.
const facterNoise = `Error: Facter: Permission denied @ rb_sysopen - /proc/1/environ
Error: Facter: Error while resolving custom fact fact='ssh_client_version_full', resolution='<anonymous>': undefined method ` + "`lines'" + ` for nil:NilClass

      lines.
      ^^^^^
Error: Facter: Error while resolving custom fact fact='ssh_client_version_major', resolution='<anonymous>': undefined method ` + "`gsub'" + ` for nil:NilClass

    version.gsub(/^([0-9]+\.[0-9]+).*$/, '\1')
           ^^^^^
`

// TestPuppetError: Puppet's error line gives the message and its position;
// Facter's complaints are never taken for it, and a failure Puppet says
// nothing about is reported at the manifest, without them.
func TestPuppetError(t *testing.T) {
	exit1 := errors.New("exit status 1")
	for _, tc := range []struct{ name, stderr, want string }{
		{"positioned", facterNoise + "Error: Could not parse for environment production: Syntax error at 'x' (file: /m/site.pp, line: 3, column: 7) on node vm\n",
			"/m/site.pp:3:7: Could not parse for environment production: Syntax error at 'x' on node vm"},
		{"unpositioned", facterNoise + "Error: Somehow looped more than 1000 times while evaluating host catalog on node vm\n",
			"puppet: Somehow looped more than 1000 times while evaluating host catalog on node vm"},
		{"silent", facterNoise, "/m/site.pp: puppet failed (exit status 1) without saying why"},
		{"other output", facterNoise + "Warning: something odd\n", "/m/site.pp: puppet failed (exit status 1): Warning: something odd"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := puppetError(tc.stderr, exit1, "/m/site.pp").Error(); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
	if got := puppetStderr(facterNoise + "Notice: Compiled catalog\n"); got != "Notice: Compiled catalog" || strings.Contains(got, "Facter") {
		t.Errorf("puppetStderr kept %q", got)
	}
}
