package puppet

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os/exec"

	"github.com/mgmtpipe/mgmt/pkg/puppet/catalog"
)

// agentScript fetches the node's catalog from the Puppet server as puppet
// agent does (plugin sync, Facter's facts sent with the request) and
// writes it as rich-data JSON; see its header.
//
//go:embed agent.rb
var agentScript string

// agentArgs returns the Puppet settings the agent script starts with.
func agentArgs(src Source) []string {
	var args []string
	if src.PuppetConf != "" {
		args = append(args, "--config", src.PuppetConf)
	}
	if src.Certname != "" {
		args = append(args, "--certname", src.Certname)
	}
	if src.Environment != "" {
		args = append(args, "--environment", src.Environment)
	}
	return args
}

// compileAgent fetches the node's catalog from its Puppet server with
// Puppet's own agent code, run by Puppet's ruby.
func compileAgent(ctx context.Context, src Source, env PuppetEnv) (*Result, error) {
	ruby, err := exec.LookPath("ruby")
	if err != nil {
		return nil, fmt.Errorf("--agent needs Puppet's ruby: %v", err)
	}
	cmd := exec.CommandContext(ctx, ruby, append([]string{"-e", agentScript, "--"}, agentArgs(src)...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	data := bytes.TrimSpace(out.Bytes())
	var failure struct {
		Error string `json:"error"`
		Step  string `json:"step"`
	}
	if json.Unmarshal(data, &failure) == nil && failure.Error != "" {
		return nil, fmt.Errorf("agent: %s: %s", agentStep(failure.Step), failure.Error)
	}
	if runErr != nil {
		return nil, fmt.Errorf("agent: puppet failed: %v: %s", runErr, puppetStderr(errb.String()))
	}
	cat, err := catalog.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("agent: reading the catalog the server compiled: %v", err)
	}
	return &Result{Catalog: cat, Env: env}, nil
}

// agentStep names a step of the agent script for its error messages.
func agentStep(step string) string {
	switch step {
	case "settings":
		return "reading Puppet's settings"
	case "certificate":
		return "loading the agent's certificate (puppet ssl bootstrap makes it)"
	case "server":
		return "connecting"
	case "pluginsync":
		return "syncing the server's plugins"
	case "facts":
		return "gathering the node's facts"
	case "catalog":
		return "fetching the catalog"
	}
	return step
}
