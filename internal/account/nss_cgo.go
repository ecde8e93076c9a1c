//go:build cgo && !osusergo

package account

// nativeNSS is true when os/user asks the C library, which goes through
// every source of the name service switch itself.
const nativeNSS = true
