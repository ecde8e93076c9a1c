package world

import "github.com/mgmtpipe/mgmt/pkg/world/worldapi"

// The interfaces and values of worldapi, under their names in this
// package: Client implements them over etcd.
type (
	StrWorld       = worldapi.StrWorld
	StrMapWorld    = worldapi.StrMapWorld
	ResWorld       = worldapi.ResWorld
	SchedulerWorld = worldapi.SchedulerWorld
	ConvergedWorld = worldapi.ConvergedWorld
	World          = worldapi.World
	SchedOpts      = worldapi.SchedOpts
	Exported       = worldapi.Exported
)

// Scheduling strategies (see worldapi).
const (
	StrategyFirst = worldapi.StrategyFirst
	StrategyAlpha = worldapi.StrategyAlpha
	StrategyHash  = worldapi.StrategyHash
)

// Strategies lists the valid strategy names.
var Strategies = worldapi.Strategies

// ExportAll is the Meta:export host that means every host.
const ExportAll = worldapi.ExportAll

var _ World = (*Client)(nil)
