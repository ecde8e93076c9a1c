package resources

// A FileRare holds the parameters of a file resource that few files set,
// kept apart so that a file that sets none of them holds no room for
// them (FileRes.Rare is nil). Read them through FileRes.rare, which
// reads a nil Rare as unset parameters, and set them through
// FileRes.setRare.
type FileRare struct {
	// Dirname, if set, replaces the directory part of the path (or name):
	// an absolute directory ending in "/". It picks the target apart from
	// the name, so an exporter may not set it.
	Dirname string `lang:"dirname" yaml:"dirname" collect:"local"`
	// Basename, if set, replaces the last part of the path (or name),
	// keeping a trailing "/" only if it has one; it must not start with
	// "/". Like dirname, an exporter may not set it.
	Basename string `lang:"basename" yaml:"basename" collect:"local"`
	// Source is a regular file (or, for a directory, a directory) to copy;
	// a FIFO, a device or a socket is an error, never read. It reads the
	// applying host's files, so an exporter may not set it.
	Source string `lang:"source" yaml:"source" collect:"local"`
	// Fragments are regular files (and directories, whose regular files
	// are taken in name order) whose contents, concatenated, make the
	// wanted content; a FIFO, a device or a socket is an error. Like
	// source, an exporter may not set them. The file resources of the
	// fragments (a directory's, for one ending in /) come first: an
	// automatic edge runs from each to this file.
	Fragments []string `lang:"fragments" yaml:"fragments" collect:"local"`
	// Recurse copies a source directory at every depth (otherwise only its
	// top-level entries), gives every entry below the directory the mode,
	// owner and group (an octal mode gives the directories, the managed
	// one included, search where it gives read, as in Puppet; without a
	// mode, copies keep the source's bits), and lets state absent remove a
	// non-empty directory.
	Recurse bool `lang:"recurse" yaml:"recurse"`
	// Force allows replacing a file by a directory or the reverse.
	Force bool `lang:"force" yaml:"force"`
	// Symlink makes the path a symbolic link whose target is source
	// (absolute or relative; it need not exist), compared with readlink.
	// Another kind of entry in the way is replaced only with force. Owner
	// and group apply to the link itself; a link has no mode.
	Symlink bool `lang:"symlink" yaml:"symlink"`
	// Purge, on a directory with recurse, removes every entry below it
	// that no other resource of the graph manages and that is not in the
	// source. It never follows a symbolic link (a link is removed as a
	// link) nor enters another mounted file system.
	Purge bool `lang:"purge" yaml:"purge"`
	// PurgeDirs, when false, makes purge keep the directories below that
	// nothing manages, and purge what they hold (their files, links and
	// so on, at every depth), as Puppet's purge does without force.
	// Unset is true: such a directory is removed with all it holds.
	PurgeDirs *bool `lang:"purge_dirs" yaml:"purge_dirs"`
	// SELinux is the SELinux context (the security.selinux attribute) of
	// the entry; "" removes it. A host without SELinux refuses it.
	SELinux *string `lang:"selinux" yaml:"selinux"`
	// ShowDiff, when false, keeps the content out of every log and event:
	// a change of content is reported with the sizes before and after,
	// never with a diff ("content would change (diff hidden): 12 bytes
	// -> 20 bytes"), for a file that holds a secret. Unset is true.
	ShowDiff *bool `lang:"show_diff" yaml:"show_diff"`
	// Replace, when false, gives a file its content (or source, or
	// fragments) only when it creates it, as Puppet's replace => false
	// does: whatever is already at the path keeps its content and is
	// never replaced, and a symbolic link there is not followed. Mode,
	// owner, group and selinux are still kept on a regular file there;
	// on anything else (a directory, a link) they are an error. It is for
	// a file only, not a directory nor a symlink. Unset is true.
	Replace *bool `lang:"replace" yaml:"replace"`
	// Links says what a symbolic link found at the path of a file or
	// directory stands for. "follow" (the default)
	// follows a link it trusts and manages its target: the link stays.
	// "replace" never follows it: with state "exists" the link is
	// replaced by the wanted file (renamed over it at once) or directory
	// (the link removed, the directory made), and what it pointed to is
	// left as it was; otherwise it is kept as "keep" keeps it. "keep"
	// never follows it either, and leaves it where it is: its content and
	// mode are not managed (a link has neither), its owner and group are
	// given to the link itself; a missing path is still created. "keep"
	// also keeps a directory found at a file's path, managing its owner,
	// group and mode (an octal mode gives it search wherever it gives
	// read) but no content; with state "absent" it keeps (and logs) such
	// a directory, which only force removes, as Puppet's ensure => absent
	// without force does. These are Puppet's links => manage with ensure => file or directory
	// ("replace") and with ensure => present or no ensure ("keep"). A
	// file with replace false never follows nor replaces a link already.
	// With "replace" and "keep", a source that is itself a link is an
	// error (Puppet would copy the link). "replace" with state "exists"
	// also replaces a FIFO or a socket at a file's path, and, with
	// symlink, a file at the link's path (not a directory, which only
	// force replaces), as Puppet does.
	Links string `lang:"links" yaml:"links"`
	// SELType is the type part of the entry's SELinux context, as
	// Puppet's file seltype gives it: a host without SELinux ignores it,
	// as Puppet does there; on a host where SELinux runs the resource
	// fails (set selinux, the whole context, there).
	SELType *string `lang:"seltype" yaml:"seltype"`
	// SELUser is the user part of the context, as seltype is its type.
	SELUser *string `lang:"seluser" yaml:"seluser"`
	// SELRole is the role part of the context, as seltype is its type.
	SELRole *string `lang:"selrole" yaml:"selrole"`
	// SELRange is the range (level) part of the context, as seltype is
	// its type.
	SELRange *string `lang:"selrange" yaml:"selrange"`
	// Backup, if set, is a Puppet file bucket directory (Puppet's
	// clientbucketdir, /var/cache/puppet/clientbucket on Debian), or
	// "puppet" for the local Puppet's own bucket: before the content of a
	// regular file at the path is replaced, or the file removed, the old
	// content is stored there as Puppet's local filebucket stores it, so
	// that `puppet filebucket -l list` and `restore` find it. With
	// "puppet", the directory and digest are the clientbucketdir and
	// digest_algorithm that `puppet config print --section user` reports
	// on the applying host (with backup_puppetconf as its puppet.conf),
	// asked once per process and puppet.conf, the first time a file must
	// be backed up; a host where Puppet cannot tell fails the resource
	// instead of replacing the file without its backup. A symbolic link
	// is not stored, nor a file reached through one. The bucket holds
	// copies of whatever the files held (secrets included): it must
	// belong to the user running the engine (root) and be writable by no
	// one else; a missing one is created with mode 0750. It writes on the
	// applying host, so an exporter may not set it.
	Backup string `lang:"backup" yaml:"backup" collect:"local"`
	// BackupDigest is the digest a bucket directory is laid out by,
	// Puppet's digest_algorithm: md5, sha224, sha256 (the default),
	// sha384 or sha512. Backup "puppet" takes Puppet's own.
	BackupDigest string `lang:"backup_digest" yaml:"backup_digest"`
	// BackupPuppetConf is the puppet.conf Puppet reads its bucket
	// settings from for backup "puppet" (empty: Puppet's own). Only the
	// applying host may set it, as backup.
	BackupPuppetConf string `lang:"backup_puppetconf" yaml:"backup_puppetconf" collect:"local"`
	// ValidateCmd, if set, checks every new content before it replaces
	// the file (or creates it): the content is written to a temporary
	// file beside it, with the mode and owner it is written with (an
	// existing file's, a new file's wanted ones), every
	// validate_replacement in the command is replaced by that file's
	// path, and /bin/sh runs the command (the locale set to C, without
	// HOME, USER and LOGNAME, as Puppet runs it); the file is written
	// only if it exits 0, otherwise the resource fails with the
	// command's output. The command runs with the engine's rights (as an
	// exec does), so an exporter may not set it.
	ValidateCmd string `lang:"validate_cmd" yaml:"validate_cmd" collect:"local"`
	// ValidateReplacement is the text of validate_cmd replaced by the
	// temporary file's path; unset is "%".
	ValidateReplacement string `lang:"validate_replacement" yaml:"validate_replacement"`
}

// noFileRare is what FileRes.rare returns for a file that sets none of
// the rare parameters: never written.
var noFileRare FileRare

// rare returns the rare parameters of the resource, for reading.
func (obj *FileRes) rare() *FileRare {
	if obj.Rare == nil {
		return &noFileRare
	}
	return obj.Rare
}

// setRare returns the rare parameters of the resource, made if it had
// none, for setting one.
func (obj *FileRes) setRare() *FileRare {
	if obj.Rare == nil {
		obj.Rare = &FileRare{}
	}
	return obj.Rare
}
