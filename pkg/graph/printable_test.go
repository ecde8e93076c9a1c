package graph

import "testing"

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"":                 "",
		"/tmp/a b\tc":      "/tmp/a b\tc",
		"file[/tmp/é]":     "file[/tmp/é]",
		"a\x00b":           `a\x00b`,
		"x\nmgmt-apply: y": `x\nmgmt-apply: y`,
		"\r\x1b[31mred":    `\r\x1b[31mred`,
		"del\x7f":          `del\x7f`,
		"c1\u0085":         `c1\u0085`,
		"bad\xff\xfeutf8":  `bad\xff\xfeutf8`,
		`already\x00 fine`: `already\x00 fine`,
		"\u2028 separator": "\u2028 separator",
	} {
		got := Printable(in)
		if got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
		if again := Printable(got); again != got {
			t.Errorf("Printable is not idempotent on %q: %q", got, again)
		}
	}
}
