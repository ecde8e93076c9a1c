// Package resources holds the core resource kinds (file, exec, noop, test,
// print, msg, timer, password, value). Each registers itself with the
// engine in an init function.
package resources
