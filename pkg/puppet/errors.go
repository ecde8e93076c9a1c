package puppet

import "github.com/mgmtpipe/mgmt/pkg/graph"

// An Error is a positioned puppet-graph error: the project's one
// positioned error, whose Pos is file:line[:col] (or empty).
type Error = graph.PosError
