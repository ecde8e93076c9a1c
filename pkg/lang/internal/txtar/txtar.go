// Package txtar reads the txtar archive format used by the test data: a
// comment, then files each introduced by a line "-- name --".
package txtar

import "strings"

// A File is one file of an archive.
type File struct {
	Name string
	Data string
}

// Parse splits an archive into its comment and files.
func Parse(s string) (comment string, files []File) {
	lines := strings.SplitAfter(s, "\n")
	var cur *File
	var b strings.Builder
	flush := func() {
		if cur == nil {
			comment = b.String()
		} else {
			cur.Data = b.String()
			files = append(files, *cur)
		}
		b.Reset()
	}
	for _, l := range lines {
		t := strings.TrimRight(l, "\r\n")
		if strings.HasPrefix(t, "-- ") && strings.HasSuffix(t, " --") && len(t) >= 6 {
			flush()
			cur = &File{Name: strings.TrimSpace(t[3 : len(t)-3])}
			continue
		}
		b.WriteString(l)
	}
	flush()
	return comment, files
}

// Format writes an archive.
func Format(comment string, files []File) string {
	var b strings.Builder
	b.WriteString(comment)
	for _, f := range files {
		b.WriteString("-- " + f.Name + " --\n")
		b.WriteString(f.Data)
		if f.Data != "" && !strings.HasSuffix(f.Data, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}
