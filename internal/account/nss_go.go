//go:build !cgo || osusergo

package account

// nativeNSS is false when os/user reads /etc/passwd and /etc/group only.
const nativeNSS = false
