// Package resources holds the core resource kinds (file, exec, noop, test,
// print, msg, timer, password, value, line, ssh:authorized_key, sysctl,
// json:edit, tar, gzip, exit, fwattr, postgresql:psql, and augeas in a
// build with the tag augeas). The kinds that act on the host through its services (svc, cron,
// nspawn, net, firewalld, gsettings, fwupd:*, ...) live in
// pkg/resources/system and are documented there. Each registers itself
// with the engine in an init function; parameters carry `lang` and `yaml`
// tags with their mcl names, from which the engine derives each kind's schema
// (pointer fields are optional: absent differs from the zero value).
//
// # Collecting
//
// A host that collects a resource another host exported applies only the
// kind and name it selected (see graph.CollectRules, enforced where the
// world is read). Each kind declares, with a `collect` struct tag next to
// its `lang` tag, the parameters that would let the exporter act on
// something else: collect:"name" when the parameter names the target and
// defaults to the name (file path, kv and value key, schedule namespace,
// json:edit store, tar and gzip path): an exporter may set it only to the
// name;
// collect:"local" when only the collecting host may set it, in its collect
// body: parameters that read the collecting host's own files (file source
// and fragments, tar inputs, gzip input), pick the target apart from a label-like name (line
// file, ssh:authorized_key file and user, sysctl path), or widen what the
// resource stands for (user allowduplicateuid, pkg allowuntrusted). The
// kinds added since follow the same rules: fwattr key, fwupd:device device
// and augeas file name their target (collect:"name"); fwattr driver, cron
// unit (what the timer starts) and gsettings schema, key, user and group
// (which setting, whose, as whom: an exported gsettings names its key by
// its name, "SCHEMA KEY") are the collecting host's (collect:"local").
// pippet is not collectable at all (Collectable returns false): a Puppet
// resource's parameters can name any target; nor is exit, which would let
// another host stop this one's engine. exec's cwd, user and group
// stay the exporter's: an exec runs as root by default, so another user
// only lowers its rights, and the command can change directory itself;
// so do its guards, watchfiles and mtimes (they only look at paths the
// command could read itself); collecting an exec is trusting the exporter
// with a command, as
// collecting a sysctl or a file's content is trusting it with that value.
// A new kind with such a parameter must tag it; a test in schemas/ fails
// for a kind whose parameter has a usual target name (path, file, source,
// user, ...) and neither a tag nor a reviewed reason.
//
// # Watching
//
// Every resource that watches paths (file, password, value, line,
// ssh:authorized_key, sysctl, json:edit on a file, tar, gzip) subscribes to
// the process-wide watcher of internal/fswatch: one inotify instance for the
// whole process, one kernel watch per directory whatever the number of
// files in it, events routed to resources by path. A Watch subscribes
// before calling Running, so no change after the first CheckApply is
// missed. Each watched directory's ancestors are watched too, so renaming
// any of them is seen, except sticky world-writable ones such as /tmp,
// whose constant traffic would wake an idle process.
//
// # file
//
// CheckApply does one lstat; when content is managed (content, source or
// fragments) and the size matches, it reads the file and compares bytes.
// Content is written atomically: a temporary file named
// ".<name>.mgmt-tmp-<random>" in the same directory gets the data, the
// permission bits and owner, and is renamed over the path; on an error or
// cancellation it is removed. Where the file system allows it (O_TMPFILE:
// ext4, XFS, Btrfs, tmpfs), the temporary file gets its name only once it
// is complete, so nobody can open it before, and watchers of the
// directory see it appear and be renamed, never written. The writer holds
// a lock (flock) on the temporary file from its creation to its rename,
// which the kernel drops
// when the writer dies: the first time a file resource starts in a
// directory, the temporary files there that nobody holds the lock of
// (left by a killed process) are removed at once, those a live writer
// holds are left alone (on a file system without locks, or for a file
// this process may not open, a temporary file must be ten minutes old). Without state "exists", a missing file is
// never created (content and mode only apply to an existing file). The
// mode is octal or symbolic as in chmod(1) ("u=rw,go=r", "a+X").
//
// Symbolic links: the directories of the path are resolved by the kernel
// (links among them are followed, under the kernel's own
// fs.protected_symlinks rule when that sysctl is on), and so are those
// of the entries a source copy or recurse reaches below a managed
// directory; a reversal removes what the resource created there walking
// down with O_NOFOLLOW, so a directory replaced by a link stops it. A symbolic link at
// the path itself is followed (its target is managed and watched, the link
// stays; state "absent" removes the link itself), hop by hop, unless
// others may have planted it. The rule is the same for every kind that
// writes files (the file-editing kinds apply it to every link along the
// path): a link is followed when it belongs to root or to the user
// mgmt-apply runs as, or when nobody else can have put it there (its
// directory belongs to one of them and is neither sticky nor writable by
// its group or by everyone). Otherwise the resource fails with "refusing
// to follow the symbolic link ..." and the target is left alone, so that
// nobody can steer a root-run resource onto a file they could not write,
// from /tmp or from their own home directory. Every change
// goes through the entry that was checked: content is compared through a
// descriptor opened with O_NOFOLLOW and replaced by a rename, and mode and
// owner change through an O_PATH descriptor of the entry (owner first:
// a chown clears set-id bits), never by path.
//
// With Meta:reverse, the state of the path before the resource's first
// change is saved in the resource's VarDir(engine.ReverseVarDir): its
// existence, mode and owner in orig.json, a regular file's content, byte
// for byte and whatever its size, in the file "content" (mode 0600, in a
// 0700 directory: only root, or the user mgmt-apply runs as, can read it),
// and for a directory, the entries the resource creates below it (in
// "created", each name followed by a NUL byte). Reversed returns a file
// resource that removes a file the resource created, or restores the saved
// content (as its source), mode and owner; for a directory, it removes
// what the resource created in it and, if the resource created the
// directory, the directory once nothing else is left: entries others added
// stay, and are logged. The engine deletes the saved state once the
// reversal is done, and when the resource runs without Meta:reverse, so
// that no later reversal restores a stale state. What a reversal could not
// restore is refused, before it is done, with an error: changing an entry
// below the directory that the resource did not create (a source copy
// overwriting it, recurse giving it a mode or owner), removing a directory
// that holds entries, and replacing a file by a directory or the reverse.
//
// Automatic edges: a file depends on its nearest managed parent directory
// and on the user and group resources named by owner and group; an exec
// depends on the directory resource of its cwd and on the file or pkg
// resource of its program (an absolute first word of cmd), and comes
// before the file resource of the path named by creates. File UIDs are
// (kind "file", name: the cleaned path without its trailing slash), so
// other kinds can point at files with an engine.BaseUID.
//
// # Editing files: line, ssh:authorized_key, sysctl, json:edit
//
// These kinds change part of a file, or a file they own whole, and share
// one way of doing it. The path is followed one directory at a time, each
// opened relative to the one before, and a symbolic link is followed only
// when root or the engine's user owns it: a link another user made (say in
// their home directory) could otherwise point an edit done with root's
// rights at /etc/shadow, or copy a file they may not read into one they
// can. The edit then works inside the directory it opened, so a directory
// swapped for a link halfway through cannot redirect the write. A file is
// read whole (at most 64 MiB; a larger one is an error), and when its
// wanted content differs it is replaced atomically, like file's content: a
// temporary file in the same directory gets the data and the file's mode,
// owner and group, and is renamed over it, so a reader sees the old or the
// new file and never a part; as with file, temporary files a killed
// process left beside it are removed when the resource starts. A file
// that is not a regular file is an error. Edits of one file by resources of one process are serialised
// (two line resources on one file never lose each other's line). A
// program that writes the file in place while it is edited can still lose
// its write: a file that changed while it was being edited is read again
// before it is replaced, but a write that lands after the rename goes to
// the replaced file. Programs sharing a file with these kinds should
// replace it atomically too. Each watches its file through the shared watcher (the path, and
// the file a link there led to when the watch started), and each depends
// on the file resource of its file and on the nearest file resource of a
// directory above it, so a file resource that creates the file or sets
// its mode runs first.
//
// # line
//
// A line resource keeps a line, or a block of consecutive lines, present
// in a text file or absent from it (Puppet's file_line maps to it).
//
//   - file (str, required): the file; absolute, or "~/..." (the engine's
//     user's home) or "~user/..." (expanded when used: Watch then also
//     follows /etc/passwd, and the file of a user made later in the same
//     run).
//   - state (str, required): "exists" or "absent".
//   - content (str, default ""): the line, or lines separated by
//     newlines. One final newline ends the last line rather than adding an
//     empty one. Empty content does nothing.
//   - trim (bool, default false): remove white space around content first.
//   - match (str, default ""): a regular expression (Go's syntax, matched
//     against each line without its newline). With "exists", the line it
//     matches is replaced by the content; with "absent" and
//     match_for_absence, the lines it matches are removed.
//   - after (str, default ""): a regular expression; a missing line is
//     inserted after the line it matches instead of at the end.
//   - multiple (bool, default false): let match and after act on several
//     lines; without it, several lines to act on is an error and the file
//     is left as it is.
//   - replace (bool, default true): false leaves a line match matches as it
//     is; the content is then added only when no line matches.
//   - match_for_absence (bool, default false): with "absent", remove the
//     lines match matches rather than the lines equal to the content.
//   - append_on_no_match (bool, default true): false adds nothing when no
//     line matches match.
//   - replace_all_matches_not_matching_line (bool, default false): replace
//     the lines match matches even when the content is already there.
//
// The block is present when consecutive whole lines of the file equal it
// (found in time linear in the file; a line that ends with CR LF is
// compared without its carriage return). "exists" appends a missing block at
// the end; when the file's last line has no newline, one is added first
// so that no two lines are joined, and the appended lines end with one. A
// missing file is created (mode 0600, owned by the engine's user: manage
// its mode with a file resource) unless the directory is missing, which is
// an error. "absent" removes every occurrence (left to right, not
// overlapping); the lines kept keep their newlines, so removing a last
// line that had none leaves the file ending with the newline of the line
// before it, and a final newline is never dropped.
//
// With match or after, the content is one line and the edit is that of
// Puppet's file_line (stdlib's ruby provider), which puppet-graph
// translates to these parameters:
//
//   - "exists" with match: nothing to do when the line is in the file and
//     some line matches (unless replace_all_matches_not_matching_line,
//     which then leaves out the lines equal to the content), or when no
//     line matches and the line is there or append_on_no_match is false,
//     or when some line matches and replace is false. Otherwise each
//     matching line is replaced by the content; when none matches the
//     line goes after the first line after matches, or at the end.
//   - "exists" with after only: when the line is missing, it goes after
//     the line after matches (each one, with multiple), or at the end.
//   - "absent" with match and match_for_absence: the matching lines are
//     removed.
//
// A file these edits rewrite has a newline at the end of every line, and
// must be UTF-8 text (a file that is not is an error, as in Puppet).
// Validate refuses what means nothing: match or after with a block of
// several lines or, for "exists", without content; after, or match
// without match_for_absence, with "absent"; match_for_absence with
// "exists"; multiple without match or after;
// replace_all_matches_not_matching_line without match, with replace false
// or with "absent". Go's regular expressions take time linear in the
// line, so no pattern makes an edit slow. line receives values (its
// content, say, from an exec's output) and sends nothing.
//
// # ssh:authorized_key
//
// An ssh:authorized_key resource keeps one public key authorized in an
// authorized_keys file, with the options and comment given, or keeps it
// out.
//
//   - state (str, required): "exists" or "absent".
//   - file (str, default "~user/.ssh/authorized_keys" with user,
//     "~/.ssh/authorized_keys" without): the file, absolute or starting
//     with "~" (expanded when used, so the user may be created later in
//     the same run).
//   - user (str, default ""): a user name; it names the default file and
//     owns the .ssh directory and the file when the resource creates them.
//   - content (str, default ""): the whole entry, "[options ]type base64
//     [comment]".
//   - options ([]str), type (str), key (str), comment (str): the entry in
//     parts (type and key go together; not with content). Without content
//     or key, the resource name is the entry.
//   - mkdir (bool, default true): create a missing ".ssh" directory
//     holding the file (mode 0700); it is never removed.
//   - matchby (str, default "key"): what identifies the entry among the
//     lines of the file, "key" or "comment" (see below). Only the
//     collecting host may set it.
//
// The entry is parsed with golang.org/x/crypto/ssh and rebuilt in one
// form; an empty or comment line, several lines, data after the key, or a
// type that differs from the key's are refused by Validate. Lines of the
// file are matched by key, not by text: "exists" makes the entry the only
// line with its key (it replaces the first line with the key in place,
// removes the others, or appends it when none has the key), so options and
// comment are enforced; "absent" removes every line with the key, whatever
// its options and comment, so a key cannot stay authorized under another
// comment. Other lines (other keys, comments, blank lines) are kept. A new
// file gets mode 0600 and, with user, that user's uid and gid. Because the
// file usually sits in a directory its user controls, the rule about
// links above matters here: a link the user made at the file or at .ssh
// is refused, not followed. With a path starting with "~", Watch also
// follows /etc/passwd and moves to the new path when the home directory
// changes or the user appears. ssh:authorized_key depends on the user
// resource of user and, for an absolute file, on the file resources of
// the file and the directory above; it sends and receives nothing.
//
// With matchby "comment" the entry is identified by its comment, as
// Puppet's ssh_authorized_key identifies a key by its name: the comment
// is that of content, else comment, else the resource name (it must not
// be empty or have white space around it). "exists" makes the entry the
// only line with that comment: the last such line is kept in its place,
// rewritten unless it already holds the key, options and comment
// (however spaced), the other lines with the comment are removed, and
// without any the entry is appended. So a new key under the same comment
// replaces the old one, which stops opening the account. "absent"
// removes every line with the comment and needs no key. Each time it
// rewrites the file it gives it mode 0600 and, with user, that user's
// uid and gid, as Puppet's provider does. Lines are parsed as sshd reads
// them; other lines (other comments, comment lines, blank lines, lines
// that are not keys) are kept byte for byte.
//
// # sysctl
//
// A sysctl resource sets a kernel parameter now and keeps it set at the
// next boot. Its name is the parameter, dotted ("net.ipv4.ip_forward") or
// as a path below /proc/sys ("net/ipv4/conf/eth0.1/rp_filter"), read as
// sysctl.d(5) reads them: when the first separator is a dot, dots and
// slashes swap roles, so "net.ipv4.conf.eth0/1.rp_filter" names interface
// eth0.1.
//
//   - value (str, required): the value as sysctl(8) shows it, without
//     surrounding white space. A list of integers matches however it is
//     spaced (the kernel separates them with tabs).
//   - runtime (bool, default true): enforce the live value in /proc/sys.
//   - persist (bool, default true): enforce the conf file.
//   - path (str, default "/etc/sysctl.d/99-<name>.conf", slashes of the
//     name turned into dots): the conf file; absolute, ending in ".conf".
//
// runtime and persist cannot both be off. CheckApply writes the live value
// when it differs (a missing /proc/sys file is an error: no such
// parameter on this kernel), then makes "<name> = <value>" the only
// assignment of the parameter in the conf file: it replaces the first
// assignment in place (whichever spelling, with or without the "-" that
// tells systemd-sysctl to ignore a failure), removes the others, or
// appends it, and keeps every other line, so pointing path at
// /etc/sysctl.conf is safe. A new conf file gets mode 0644. Parameters of
// the network (net.*) belong to the network namespace of the engine.
// Watch follows the /proc/sys file and the conf file: a write to /proc/sys
// (echo, sysctl -w) is seen at once (inotify reports writes to /proc/sys
// files), but a value the kernel changes by itself is not: the periodic
// recheck (mgmt-apply --recheck) finds it, or Meta:poll, sooner.
// sysctl depends on the file resources of its conf file and of the
// directory above; it sends and receives nothing.
//
// # json:edit
//
// A json:edit resource applies edits to one JSON object stored in a file
// or in a string key of the world (the store the kv kind uses).
//
//   - store (str, default: the resource name): an absolute path,
//     "file:///PATH" or "etcd:///KEY" (no host, query or fragment; the
//     key is what follows the third slash).
//   - edits ([]str, required, not empty): applied in order, each one of
//     ".a.b = VALUE" (set, creating missing objects along the path) or
//     "del(.a.b)" (delete; a path that is not there is left alone). A path
//     is a dot followed by steps: names [A-Za-z_][A-Za-z0-9_]*, after a
//     dot, or keys as non-empty JSON strings in brackets, with or without
//     a dot before them (.a["b c"].d, .["k"], .a.["b"]). VALUE is exactly
//     one JSON value. There are no arrays, filters or pipes. A malformed
//     edit is refused by Validate, with its column.
//
// CheckApply reads the store (a file must exist and be a regular file; a
// missing key reads as {}), decodes exactly one JSON object (a value of
// another type, or data after it, is an error), applies the edits and
// compares the value before and after in canonical form (keys sorted,
// numbers as written: 1.50 stays 1.50, and integers beyond 64 bits are
// kept). Formatting alone never rewrites the store. When the value
// changed, the object is written indented with tabs, keys sorted,
// followed by a newline: a file is replaced atomically keeping its mode
// and owner; a key is set. Edits of one store by resources of one process
// are serialised; a key is set without comparing it with what was read,
// so two hosts editing one key at once can lose an update. Going through a
// value that is not an object is an error. Watch follows the file (like
// line) or the key (through the world). An edit of a file depends on the
// file resources of the file and the directory above; json:edit sends and
// receives nothing.
//
// # tar and gzip
//
// A tar resource keeps an archive of local files and directories up to
// date; a gzip resource keeps a compressed copy of a file, or of given
// content.
//
// tar:
//
//   - path (str, default: the resource name): the archive; absolute, not
//     ending in "/", not inside an input.
//   - inputs ([]str, default none: an empty archive): absolute paths, in
//     order. A file is stored under its base name; a directory under its
//     base name ("dir/..."), or, when the input ends in "/", with its
//     contents at the top. Directories are walked at every depth in name
//     order and get entries of their own; symbolic links inside them are
//     stored as links; other special files are an error, and so are two
//     inputs giving one name.
//   - format (int, default 0): the header format, as in archive/tar: 0
//     (USTAR where it can, else PAX, else GNU, per entry), 2 (USTAR), 4
//     (PAX, which alone keeps sub-second times) or 8 (GNU).
//
// gzip:
//
//   - path (str, default: the resource name): the compressed file.
//   - input (str, optional): an absolute file to compress.
//   - content (str, default ""): the data to compress when there is no
//     input (empty content gives a valid empty gzip file); not with input.
//   - level (int, default -1): -2 (Huffman only), -1 (default), 0 (no
//     compression) to 9 (best).
//
// Whether an output is up to date is decided by two files in the
// resource's vardir: input.sha256 holds the sha256 of a record of what the
// output was made from (for tar, the format and each entry's header
// fields, name, type, mode, owner, modification time, link target, size,
// and the sha256 of its content; for gzip, the level and the sha256 of the
// data), output.sha256 the sha256 of the output as written. CheckApply
// recomputes the first (reading every input) and hashes the output; both
// must match, so a changed, touched or new input, a changed level or
// format, and an output edited or removed by hand all lead to a rebuild,
// and nothing else does. An output that was there before the resource
// first ran (no record) is rebuilt once. Access and change times are left
// out of tar headers, so reading an input never changes the archive.
// An output is written atomically: to a temporary file beside it, synced,
// given the mode and owner of the file it replaces (a new output: mode
// 0600, since an archive may hold files others may not read; manage its
// mode with a file resource), and renamed over it; a failed or cancelled
// build (an input that changed size while read, an unreadable file)
// removes the temporary file and leaves the old output as it was, so a
// crash never leaves a partial archive. Inputs are reached through trusted
// links only, like edited files, and files are opened without following a
// link. Watch follows the output and every input at any depth. Each
// depends on the file resources of its inputs, of its output and of the
// directory above, and stands for a file resource of its output, so that
// a gzip of an archive (or anything else depending on that file) waits
// for the tar; neither sends nor receives.
//
// # exit
//
// An exit resource makes the program running the engine stop with an exit
// code: mgmt-apply, once the engine has shut down cleanly (every Watch
// ended, running CheckApply calls cancelled, Cleanup run), exits with it.
//
//   - code (int, default 0): the exit code, 0 to 125 (above, shells give
//     codes meanings of their own), except 1, 2, 4 and 6: mgmt-apply
//     exits 1 on an error or a failed resource and 2 on a usage error, and
//     with --detailed-exitcodes 2, 4 and 6 for changes, failures and both,
//     so Validate refuses them and a caller can always tell a requested
//     exit from the tool's own outcome (upstream mgmt allows 1 to 125).
//
// Its CheckApply asks through Init.Exit, and returns "changed" so that the
// request shows in the log; in noop mode (apply false) it only reports
// that it would, and never stops anything. Put edges from what must be
// done first: other resources still running at that moment are cancelled.
// Watch has nothing to follow. A program whose Init has no Exit makes the
// resource fail. exit is never collected from another host. It sends and
// receives nothing, and has no automatic edges.
//
// # fwattr
//
// A fwattr resource keeps a firmware (BIOS/UEFI setup) attribute that the
// kernel publishes at
// /sys/class/firmware-attributes/DRIVER/attributes/KEY/current_value.
//
//   - key (str, default: the name): the attribute, one file name.
//   - driver (str, default ""): the driver directory (thinklmi,
//     dell-wmi-sysman, ...); "" picks the only one there is (none or
//     several is an error). Only the collecting host may set it.
//   - value (str): the value wanted, one line.
//   - check (bool, default true): check the value against the attribute's
//     metadata: an enumeration's possible_values, an integer's min_value,
//     max_value and scalar_increment, a string's min_length and
//     max_length; another type (ordered-list) is an error.
//   - strict (bool, default false): without it, a value missing from an
//     enumeration is replaced by its alias when only that is there
//     (Enabled for Enable, Disabled for Disable, both ways).
//   - skip (bool, default false): on a host without the attribute (or
//     without the class directory), do nothing and log a warning.
//
// CheckApply compares current_value (without its final newline) with the
// value and writes value plus a newline to it, never through a link.
// Watch follows current_value through the shared watcher: a write to it
// is seen, a change the firmware makes by itself is not. Changes usually
// take effect at the next boot, and some firmware asks for an
// administrator password first (through the driver's authentication
// directory), which fwattr does not handle. Only root can write these
// files. This kind is tested on a stand-in sysfs tree (the resource's
// Root field, not a parameter), not on real firmware. fwattr sends and
// receives nothing.
//
// # augeas
//
// An augeas resource keeps values in a configuration file through
// libaugeas and one of its lenses, which parse the file into a tree and
// write back only what changed, so comments and layout stay. The kind
// exists only in binaries built with the build tag augeas (cgo and
// libaugeas: go build -tags augeas, or GOFLAGS=-tags=augeas make);
// elsewhere graph.LookupKind("augeas") reports it missing, which is how
// puppet-graph knows to leave Puppet's augeas resources to pippet.
//
//   - file (str, default: the name): the file, absolute and clean; it
//     must exist (a file resource can create it).
//   - lens (str, required): the lens, such as "Shellvars.lns"; only it
//     is loaded, for only this file.
//   - sets ([]struct{path str; value str}, required, not empty): each
//     path (relative to the file's tree, without "..") must hold value.
//
// The path to the file is followed as the file-editing kinds follow it (a
// link another user planted is refused) and libaugeas is given the path
// it leads to. A file the lens cannot parse, an unknown lens and a path
// that matches several nodes are errors. When a value differs the node is
// set and the file saved by libaugeas (a new file renamed over the old
// one, keeping its mode). Watch follows the file; augeas depends on the
// file resources of the file and the directory above. It sends and
// receives nothing.
//
// # exec
//
// Without a guard (ifcmd, nifcmd, creates), the command runs on the first
// CheckApply, after a refresh, after each line of watchcmd's output, after
// each change of a watchfiles path and, with Meta:poll, at every poll;
// other CheckApply calls (a poke from a changed predecessor, the second
// half of a paired execution) find the state right. The guards are checked
// at every CheckApply, in this order: ifcmd must exit 0 (and, when set,
// what it printed must differ from ifequals, stdout and stderr together
// as one pipe carries them, or its stdout from ifequals_stdout), nifcmd
// must exit non-zero, the creates path must be missing. A guard that
// cannot be started is an error, not a "no". refreshonly runs the command
// on a refresh only (Puppet's refreshonly, which puppet-graph translates
// to it), still subject to the guards; it refuses watchcmd, watchfiles and
// mtimes, whose events could never run the command.
//
// mtimes lists files: when one's modification time differs from the one
// it had when the last successful run started (a newer file, or one put
// back with an older time), or no run was recorded, the command runs
// whatever the guards say; a missing file is an error. The times are kept
// per file in the vardir (exec/mtimes.json), so a restarted engine does
// not run the command again for nothing, and are taken before the run, so
// a file changed while the command runs makes it run again. Each file is
// compared with its own earlier time rather than with the clock, which
// the kernel's file times lag behind. A command should therefore not
// modify the files it lists: it would run again after each run.
// watchfiles, creates and the mtimes files are watched through the shared
// watcher (a watchfiles path ending in "/" at any depth); a watchfiles
// change makes the command due, the others only wake CheckApply.
//
// Commands run in their own process group. A run that is cancelled (the
// engine stops or swaps the graph, timeout or Meta:timeout expires) sends
// sig (SIGTERM unless set, any signal name with the SIG prefix) to the
// group; the command has 5 seconds to end (and to close its output)
// before SIGKILL ends it, and once it has ended SIGKILL goes to what is
// left of its group, so a cancelled run leaves no process behind. When the
// engine's process dies without stopping them (SIGKILL), the kernel kills
// each command (its parent-death signal; what a command forked itself
// outlives it unless the command ran it with exec). After a run, exec
// sends output (stdout and stderr, in the order the two pipes were read),
// stdout and stderr: the last MiB of each, after a line saying how many
// bytes were cut when there were more, which is also logged. What a
// successful run sent is kept in the vardir (exec/sends.json, mode 0600 in
// a 0700 directory: only root, or the user mgmt-apply runs as, can read a
// command's output), and sent again when a later CheckApply, in this
// process or the next, skips the command before it ran; without such a
// record, send_output, send_stdout and send_stderr are sent instead (an
// unset one as no value). exec receives nothing (it is not Recvable).
//
// # postgresql:psql
//
// A postgresql:psql resource runs an SQL command with psql, the way the
// ruby provider of Puppet's postgresql_psql (puppetlabs-postgresql) does,
// which puppet-graph translates to it. Each SQL text (the command, and a
// guard wrapped as "SELECT COUNT(*) FROM (GUARD) count"), after
// "set search_path to A,B; " when search_path is set, is passed to psql
// as one argument, without a shell:
//
//	PSQL_PATH [-d DB] [-p PORT] -t -X -c SQL
//
// psql runs in cwd (default /tmp) as psql_user with psql_group (default
// postgres and postgres; an empty group is the user's primary one) and
// the user's supplementary groups, unless psql_user is the engine's own
// user, whose groups it keeps. Its standard input is /dev/null; standard
// output and error share one pipe. Its environment is the engine's
// without HOME, USER, LOGNAME and the locale variables, with LANG=C and
// LC_ALL=C, then connect_settings, then environment (each wins over what
// came before). A psql_path without a slash is looked up in that
// environment's PATH. Unlike Puppet, which enters cwd as root before
// changing user, psql enters it as psql_user: a cwd that user may not
// search is an error.
//
// At each CheckApply the command is due unless onlyif is set and its count
// is not above 0, or unless is set and its count is above 0, or
// refreshonly is set (checked in this order, the guards run even for a
// refreshonly resource, as in Puppet). The count is read as Ruby reads
// it: the leading integer of the output, white space stripped (anything
// else reads as 0). A guard that psql fails on (non-zero exit) is an
// error, and so is a command psql fails on. With a refresh the guards are
// checked once more after that and, when they let it (refreshonly does
// not stop it then), the command runs again: Puppet syncs the command and
// then refreshes the resource in the same run. A noop check (apply false)
// runs the guards and says "run ..." when the command would run, never
// running it. Note that psql 15 and later print the result of every
// statement of -c: with search_path, the "SET" line comes before a
// guard's count, which then reads as 0, as it does for Puppet's provider.
//
// Nothing watches the database: Watch ends at once, and the periodic
// recheck (mgmt-apply --recheck, every 30 minutes by default, as often as
// Puppet runs) runs the guards again and the command when they let it.
//
// Security: the SQL runs with psql_user's rights in the database, by
// default the superuser postgres, which can read and write every
// database and run programs as the system user postgres (COPY ... TO
// PROGRAM): whoever writes the graph is trusted as root is, like the
// author of an exec. postgresql:psql is never collected from another
// host (Collectable returns false). With sensitive set, the SQL texts
// and psql's output (whose error messages quote the SQL) appear in no
// message or log line: the resource's own lines say "the SQL command
// (sensitive: not shown)" and its errors give psql's exit status only.
// The parameters still travel in the graph document, in clear: protect
// the graph as a secret when it holds one.
//
// # The value store
//
// The value resource and mcl's value.get* functions share a local store
// under the engine's prefix (--prefix): key K lives in the file
//
//	<prefix>/value/<url.PathEscape(K)>
//
// holding the JSON encoding of the value, without a trailing newline: a
// string ("text"), an int (42), a float (always with a "." or an exponent,
// e.g. 1.0, 2.5e-07) or a bool (true). A missing file means the key is not
// set (value.get* report ready false). Files are replaced atomically
// (temporary file and rename in the same directory), so a reader watching
// the directory with inotify sees a create or a moved-to event and never a
// partial value; temporary files start with "." and can be ignored. The
// value resource takes key (default: the resource name) and at most one of
// str, int, float and bool; with none set, it removes the key.
//
// # Other kinds
//
// noop does nothing (noops group into one vertex); test has a parameter of
// most types mcl can express and sends "hello" and "answer"; print logs
// msg (with refresh_only, only on a refresh); msg logs body and, with
// journal set, writes it to journald's native socket, with syslog set, to
// the local syslog socket /dev/log (RFC 3164 without a host name,
// facility daemon; a missing socket is an error); timer reports a change
// every interval seconds, refreshing its notify successors; password
// generates a random password and sends it as "password", generating a
// new one on a refresh: with saved it is kept in its vardir (mode 0600,
// in a 0700 directory) across restarts, without (the default) it never
// reaches the disk and a restart makes a new one; a kept password that is
// not valid for the length is an error unless check_recovery is set.
package resources
