package puppet

// The translation checks its output against the parameter schemas of our
// kinds, which the resource kinds register.
import _ "github.com/mgmtpipe/mgmt/pkg/resources/all"
