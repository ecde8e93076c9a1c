// Package dist holds what a host needs around the tools: the systemd
// units (systemd/), the manual pages (man/) and the bash, zsh and fish
// completion (completion/), and the Debian package build (deb/). Its Go files only
// regenerate and check the generated part: run go generate ./dist after
// changing a flag of a tool.
package dist

//go:generate go run ../internal/manual/gen -root ..
