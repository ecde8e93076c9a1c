package metrics

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// A textSource adds families written elsewhere under a name prefix.
type textSource struct {
	prefix string
	max    int
	fetch  func() ([]byte, error)
	report func(error)
}

// AddText adds the families that fetch returns at each scrape, in the
// text format, every name of which starts with prefix (no family of the
// registry may). A text longer than max bytes, or one that Check
// refuses, is left out of the scrape whole, so that a bad source never
// breaks nor bloats the rest of the scrape. When report is not nil it is
// called after each fetch with the error that left the text out (fetch's
// own included), or nil.
func (r *Registry) AddText(prefix string, max int, fetch func() ([]byte, error), report func(error)) {
	if prefix == "" || !validName(prefix, true) {
		panic(fmt.Sprintf("metrics: invalid prefix %q", prefix))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for n := range r.names {
		if strings.HasPrefix(n, prefix) {
			panic(fmt.Sprintf("metrics: %s is under the prefix %s of a text source", n, prefix))
		}
	}
	for _, t := range r.texts {
		if strings.HasPrefix(t.prefix, prefix) || strings.HasPrefix(prefix, t.prefix) {
			panic(fmt.Sprintf("metrics: the prefixes %s and %s of two text sources overlap", t.prefix, prefix))
		}
	}
	r.texts = append(r.texts, &textSource{prefix: prefix, max: max, fetch: fetch, report: report})
	sort.Slice(r.texts, func(i, j int) bool { return r.texts[i].prefix < r.texts[j].prefix })
}

// text returns the source's text for this scrape, checked, or nothing.
func (t *textSource) text() []byte {
	b, err := t.fetch()
	switch {
	case err != nil:
	case len(b) > t.max:
		err = fmt.Errorf("%d bytes of metrics, over the limit of %d", len(b), t.max)
	default:
		err = Check(b, t.prefix)
	}
	if t.report != nil {
		t.report(err)
	}
	if err != nil {
		return nil
	}
	return b
}

// AppendText appends the exposition of every family of the registry and
// of its text sources to b, the families sorted by name.
func (r *Registry) AppendText(b []byte) []byte {
	fams := r.Gather()
	r.mu.Lock()
	texts := append([]*textSource(nil), r.texts...)
	r.mu.Unlock()
	// A name either starts with a source's prefix, which only the source's
	// names do, or sorts before every such name or after all of them: the
	// source's text goes where its prefix sorts.
	for _, t := range texts {
		for len(fams) > 0 && fams[0].Name < t.prefix {
			b = AppendFamily(b, &fams[0])
			fams = fams[1:]
		}
		if x := t.text(); len(x) > 0 {
			b = append(b, x...)
			if x[len(x)-1] != '\n' {
				b = append(b, '\n')
			}
		}
	}
	for i := range fams {
		b = AppendFamily(b, &fams[i])
	}
	return b
}

// Write writes the exposition of the registry to w.
func (r *Registry) Write(w io.Writer) error {
	_, err := w.Write(r.AppendText(nil))
	return err
}

// Handler serves the exposition over HTTP, compressed with gzip when the
// client accepts it (as Prometheus does).
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b := r.AppendText(nil)
		h := w.Header()
		h.Set("Content-Type", ContentType)
		h.Add("Vary", "Accept-Encoding")
		if acceptsGzip(req.Header.Values("Accept-Encoding")) {
			h.Set("Content-Encoding", "gzip")
			gz := gzip.NewWriter(w)
			gz.Write(b)
			gz.Close()
			return
		}
		h.Set("Content-Length", strconv.Itoa(len(b)))
		w.Write(b)
	})
}

// acceptsGzip says whether Accept-Encoding headers name gzip with a
// quality above 0.
func acceptsGzip(hs []string) bool {
	for _, h := range hs {
		for _, e := range strings.Split(h, ",") {
			name, params, _ := strings.Cut(e, ";")
			if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
				continue
			}
			q, ok := strings.CutPrefix(strings.TrimSpace(params), "q=")
			if !ok {
				return true
			}
			if f, err := strconv.ParseFloat(q, 64); err == nil && f > 0 {
				return true
			}
		}
	}
	return false
}

// AppendFamily appends the exposition of one family to b: its HELP and
// TYPE lines and its samples, in their order.
func AppendFamily(b []byte, f *Family) []byte {
	b = append(b, "# HELP "...)
	b = append(b, f.Name...)
	b = append(b, ' ')
	b = appendEscaped(b, f.Help, false)
	b = append(b, "\n# TYPE "...)
	b = append(b, f.Name...)
	b = append(b, ' ')
	b = append(b, f.Type.String()...)
	b = append(b, '\n')
	for _, s := range f.Samples {
		b = append(b, f.Name...)
		b = append(b, s.Suffix...)
		if len(s.Labels) > 0 {
			b = append(b, '{')
			for i, l := range s.Labels {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, l.Name...)
				b = append(b, `="`...)
				b = appendEscaped(b, l.Value, true)
				b = append(b, '"')
			}
			b = append(b, '}')
		}
		b = append(b, ' ')
		b = AppendFloat(b, s.Value)
		b = append(b, '\n')
	}
	return b
}

// appendEscaped appends s with backslashes and newlines escaped, and
// double quotes too in a label value; bytes that are not UTF-8 become
// U+FFFD, since the format is UTF-8.
func appendEscaped(b []byte, s string, quote bool) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quote:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// AppendFloat appends a sample value as Prometheus's own client writes
// it: the shortest form that reads back the same, in 'g' notation (an
// exponent from 1e21 and below 1e-4), and NaN, +Inf and -Inf.
func AppendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, 1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	case f == 0:
		return append(b, '0') // and not -0
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// Check reports the first thing in text that is not the text
// exposition format, or a family whose name does not start with prefix:
// a line that is neither a comment, a HELP or TYPE line, nor a sample
// (name, labels with their values quoted and escaped, a float value and
// an optional timestamp); a second HELP or TYPE line of a family, or a
// TYPE line after its samples; a family whose lines are not together; an
// unknown type; text that is not UTF-8.
func Check(text []byte, prefix string) error {
	if !utf8.Valid(text) {
		return fmt.Errorf("metrics text: not UTF-8")
	}
	c := checker{prefix: prefix, seen: map[string]bool{}}
	for n := 1; len(text) > 0; n++ {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if err := c.line(string(line)); err != nil {
			return fmt.Errorf("metrics text: line %d: %v", n, err)
		}
	}
	return nil
}

// checker follows the families of a text: the current one, its type,
// whether it had its HELP line and samples, and every name seen.
type checker struct {
	prefix                 string
	seen                   map[string]bool
	cur, typ               string
	help, samples, started bool
}

func (c *checker) line(l string) error {
	if blanks(l) == "" {
		return nil
	}
	if rest, ok := strings.CutPrefix(l, "#"); ok {
		kw, rest := token(rest)
		name, rest := token(rest)
		if name == "" || kw != "HELP" && kw != "TYPE" {
			return nil // a comment
		}
		if err := c.family(name); err != nil {
			return err
		}
		if kw == "HELP" {
			if c.help {
				return fmt.Errorf("a second HELP line for %s", name)
			}
			c.help = true
			return checkHelp(blanks(rest))
		}
		if c.typ != "" || c.samples {
			return fmt.Errorf("a TYPE line for %s after its type or samples", name)
		}
		typ, rest := token(rest)
		if typ == "" || blanks(rest) != "" {
			return fmt.Errorf("a TYPE line for %s without one type", name)
		}
		switch typ {
		case "counter", "gauge", "histogram", "summary", "untyped":
		default:
			return fmt.Errorf("unknown type %q", typ)
		}
		c.typ = typ
		return nil
	}
	return c.sample(l)
}

// blanks returns s without its leading blanks: the format's, spaces and
// tabs.
func blanks(s string) string { return strings.TrimLeft(s, " \t") }

// token returns the first word of s, between blanks, and what follows it.
func token(s string) (tok, rest string) {
	s = blanks(s)
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// family makes name the current family, unless it is already.
func (c *checker) family(name string) error {
	if c.started && name == c.cur {
		return nil
	}
	if !validName(name, true) {
		return fmt.Errorf("invalid metric name %q", name)
	}
	if !strings.HasPrefix(name, c.prefix) {
		return fmt.Errorf("%s is not a name under %s", name, c.prefix)
	}
	if c.seen[name] {
		return fmt.Errorf("the lines of %s are not together", name)
	}
	c.seen[name] = true
	c.cur, c.typ, c.help, c.samples, c.started = name, "", false, false, true
	return nil
}

// sample checks a sample line and the family it belongs to.
func (c *checker) sample(l string) error {
	i := 0
	for i < len(l) && l[i] != '{' && l[i] != ' ' && l[i] != '\t' {
		i++
	}
	name, rest := l[:i], l[i:]
	if !c.ofCurrent(name) {
		if err := c.family(name); err != nil {
			return err
		}
	}
	c.samples = true
	if strings.HasPrefix(rest, "{") {
		var err error
		if rest, err = checkLabels(rest[1:]); err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
	}
	value, after := token(rest)
	ts, after := token(after)
	if value == "" || blanks(after) != "" || blanks(rest) == rest {
		return fmt.Errorf("%s: want a value and an optional timestamp after the name and labels", name)
	}
	if strings.ContainsAny(value, "pPxX_") {
		return fmt.Errorf("%s: invalid value %q", name, value)
	}
	if _, err := strconv.ParseFloat(value, 64); err != nil {
		return fmt.Errorf("%s: invalid value %q", name, value)
	}
	if ts != "" {
		if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
			return fmt.Errorf("%s: invalid timestamp %q", name, ts)
		}
	}
	return nil
}

// ofCurrent says whether a sample named name belongs to the current
// family: its name, or for a summary or histogram its name with the
// suffix of one of their series.
func (c *checker) ofCurrent(name string) bool {
	if !c.started {
		return false
	}
	if name == c.cur {
		return true
	}
	suffix, ok := strings.CutPrefix(name, c.cur)
	if !ok {
		return false
	}
	switch c.typ {
	case "summary":
		return suffix == "_sum" || suffix == "_count"
	case "histogram":
		return suffix == "_sum" || suffix == "_count" || suffix == "_bucket"
	}
	return false
}

// checkLabels checks the labels after a sample's "{" and returns the rest
// of the line after the "}".
func checkLabels(s string) (string, error) {
	names := map[string]bool{}
	for {
		s = blanks(s)
		if rest, ok := strings.CutPrefix(s, "}"); ok {
			return rest, nil
		}
		i := strings.IndexByte(s, '=')
		if i < 0 {
			return "", fmt.Errorf("unterminated labels")
		}
		n := strings.TrimRight(s[:i], " \t")
		if !validName(n, false) || names[n] {
			return "", fmt.Errorf("invalid or repeated label name %q", n)
		}
		names[n] = true
		s = blanks(s[i+1:])
		if !strings.HasPrefix(s, `"`) {
			return "", fmt.Errorf("label %s: value not quoted", n)
		}
		j := 1
		for ; j < len(s) && s[j] != '"'; j++ {
			if s[j] == '\\' {
				if j+1 == len(s) || !strings.ContainsRune(`\"n`, rune(s[j+1])) {
					return "", fmt.Errorf("label %s: invalid escape", n)
				}
				j++
			}
		}
		if j == len(s) {
			return "", fmt.Errorf("label %s: unterminated value", n)
		}
		s = blanks(s[j+1:])
		if rest, ok := strings.CutPrefix(s, ","); ok {
			s = rest
		} else if !strings.HasPrefix(s, "}") {
			return "", fmt.Errorf("label %s: want , or } after the value", n)
		}
	}
}

// checkHelp checks the escapes of a HELP line's text: a backslash and a
// newline only.
func checkHelp(s string) error {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			if i+1 == len(s) || s[i+1] != '\\' && s[i+1] != 'n' {
				return fmt.Errorf("invalid escape in the HELP text")
			}
			i++
		}
	}
	return nil
}
