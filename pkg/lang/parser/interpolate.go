package parser

import (
	"fmt"
	"strings"

	"github.com/mgmtpipe/mgmt/pkg/lang/ast"
)

// unescape decodes the escapes of a string literal: \a \b \f \n \r \t \v
// \\ \" \$; any other escape is an error.
func unescape(raw string) (string, error) {
	if !strings.Contains(raw, `\`) {
		return raw, nil
	}
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(raw) {
			return "", fmt.Errorf("unterminated escape sequence")
		}
		switch raw[i] {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '"', '$':
			b.WriteByte(raw[i])
		default:
			return "", fmt.Errorf("unknown escape sequence \\%c", raw[i])
		}
	}
	return b.String(), nil
}

func isInterpStart(c byte) bool { return c >= 'a' && c <= 'z' }
func isInterpChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.'
}

// interpolate turns a string token into an *ast.Str, or an *ast.Interp when
// it holds ${name} parts. Escapes are decoded piecewise so that `\$` stays
// a literal dollar.
func interpolate(t token) (ast.Expr, error) {
	if strings.IndexByte(t.text, '\\') < 0 && !strings.Contains(t.text, "${") {
		// Nothing to decode: the literal is the source text itself.
		return &ast.Str{Pos: t.pos, Value: t.text}, nil
	}
	return interpolateParts(t.text, t.pos)
}

// interpolateParts splits the raw text of a string literal at pos into
// its literal and ${name} parts, decoding the escapes.
func interpolateParts(raw string, pos ast.Pos) (ast.Expr, error) {
	var parts []ast.Expr
	var lit strings.Builder
	fail := func(format string, args ...any) error {
		return syntaxErr(pos, format, args...)
	}
	flush := func() {
		if lit.Len() > 0 {
			parts = append(parts, &ast.Str{Pos: pos, Value: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == '\\' {
			if i+1 >= len(raw) {
				return nil, fail("unterminated escape sequence")
			}
			s, err := unescape(raw[i : i+2])
			if err != nil {
				return nil, fail("%v", err)
			}
			lit.WriteString(s)
			i++
			continue
		}
		if c == '$' && i+1 < len(raw) && raw[i+1] == '{' {
			end := strings.IndexByte(raw[i+2:], '}')
			if end < 0 {
				return nil, fail("unterminated ${ in string")
			}
			name := raw[i+2 : i+2+end]
			if name == "" || !isInterpStart(name[0]) || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
				return nil, fail("bad interpolation ${%s}: only ${name} is allowed", name)
			}
			for k := 0; k < len(name); k++ {
				if !isInterpChar(name[k]) {
					return nil, fail("bad interpolation ${%s}: only ${name} is allowed", name)
				}
			}
			flush()
			parts = append(parts, &ast.Var{Pos: pos, Name: name})
			i += 2 + end
			continue
		}
		lit.WriteByte(c)
	}
	flush()
	if len(parts) == 0 {
		return &ast.Str{Pos: pos, Value: ""}, nil
	}
	if s, ok := parts[0].(*ast.Str); ok && len(parts) == 1 {
		return s, nil
	}
	return &ast.Interp{Pos: pos, Parts: parts}, nil
}
