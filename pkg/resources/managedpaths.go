package resources

import (
	"path/filepath"

	"github.com/mgmtpipe/mgmt/pkg/engine"
)

// The files the kinds that edit files manage (engine.PathManager), which a
// purging directory keeps. A path whose "~" cannot be expanded names no
// file yet, and is left out.

func managedFile(p string) []engine.ManagedPath {
	p, err := expandHome(p)
	if err != nil || !filepath.IsAbs(p) {
		return nil
	}
	return []engine.ManagedPath{{Path: filepath.Clean(p)}}
}

// ManagedPaths returns the file.
func (l *LineRes) ManagedPaths() []engine.ManagedPath { return managedFile(l.File) }

// ManagedPaths returns the authorized_keys file.
func (s *SSHAuthorizedKeyRes) ManagedPaths() []engine.ManagedPath { return managedFile(s.file()) }

// ManagedPaths returns the archive.
func (t *TarRes) ManagedPaths() []engine.ManagedPath { return managedFile(t.path()) }

// ManagedPaths returns the compressed file.
func (g *GzipRes) ManagedPaths() []engine.ManagedPath { return managedFile(g.path()) }

// ManagedPaths returns the conf file, when it is enforced.
func (s *SysctlRes) ManagedPaths() []engine.ManagedPath {
	if !s.Persist {
		return nil
	}
	return managedFile(s.path())
}

// ManagedPaths returns the edited file, for a file store.
func (j *JSONEditRes) ManagedPaths() []engine.ManagedPath {
	file, _, err := parseJSONStore(j.store())
	if err != nil || file == "" {
		return nil
	}
	return managedFile(file)
}
