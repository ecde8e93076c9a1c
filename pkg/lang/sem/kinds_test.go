package sem_test

// The tests type-check their programs against the resource kinds the tools
// use: the real schemas, registered by the resource packages (only tests
// import them; pkg/lang itself learns kinds from pkg/graph's registry).
import (
	_ "github.com/mgmtpipe/mgmt/pkg/resources"
	_ "github.com/mgmtpipe/mgmt/pkg/resources/system"
)
