package all

// The world functions live in their own file so the world's owner can add
// them without touching the list above.
import _ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/world" // world.getval, world.kvlookup, world.schedule, world/collect.res
