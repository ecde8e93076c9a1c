package eval

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Integer.new, Float.new and Numeric.new of a string, as Puppet 7 does
// them: the string must match the type's pattern (Puppet's
// INTEGER_PATTERN_LENIENT or FLOAT_PATTERN), and is then converted by
// Ruby's Integer() or Float(), or by Puppet's own number scanner for
// Numeric; a sign followed by blanks is retried without them. A form whose
// result is not a value the engine holds (an integer beyond 64 bits, an
// infinite float) is refused.

var (
	// intLenient is INTEGER_PATTERN_LENIENT: sign, white space, digits
	// (decimal or octal), hex or binary.
	intLenient = regexp.MustCompile(`^([-+]?)([ \t\n\v\f\r]*)([0-9]+|0[xX][0-9A-Fa-f]+|0[bB][01]+)$`)
	// floatPattern is FLOAT_PATTERN.
	floatPattern = regexp.MustCompile(`^([-+]?)([ \t\n\v\f\r]*)((?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE]-?[0-9]+)?|0[xX][0-9A-Fa-f]+|0[0-7]+|0[bB][01]+)$`)
	// numericScan is Puppet's Patterns::NUMERIC, which Numeric.new uses
	// after the pattern: blanks around, sign, hex, or digits with an
	// optional fraction and exponent.
	numericScan = regexp.MustCompile(`^[ \t]*([-+]?)[ \t]*(?:(0[xX][0-9A-Fa-f]+)|(0?[0-9]+)((?:\.[0-9]+)?(?:[eE]-?[0-9]+)?))[ \t]*$`)
)

// signedBody splits a string that matched a pattern with sign, space and
// body groups into the sign and the body Ruby converts: Ruby's Integer()
// and Float() take white space before the number but not after a sign,
// where Puppet retries without blanks (spaces and tabs) only.
func (x *fcall) signedBody(s string, m []string, typ string) (sign, body string) {
	if m[2] != "" && m[1] != "" && strings.Trim(m[2], " \t") != "" {
		x.fail("The string '%s' cannot be converted to %s", s, typ)
	}
	return m[1], m[3]
}

// parseRubyInt is Ruby's Integer(body, radix) of an unsigned body that
// matched intLenient or floatPattern (radix 0: Ruby's default, which reads
// 0x, 0b and a leading 0 as prefixes).
func (x *fcall) parseRubyInt(s, sign, body string, radix int) int64 {
	lower := strings.ToLower(body)
	digits := body
	switch {
	case radix == 0 && strings.HasPrefix(lower, "0x"), radix == 16 && strings.HasPrefix(lower, "0x"):
		radix, digits = 16, body[2:]
	case radix == 0 && strings.HasPrefix(lower, "0b"), radix == 2 && strings.HasPrefix(lower, "0b"):
		radix, digits = 2, body[2:]
	case radix == 0 && len(body) > 1 && body[0] == '0':
		radix = 8
	case radix == 0:
		radix = 10
	}
	n, err := strconv.ParseInt(sign+digits, radix, 64)
	if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
		x.unsupported("of '" + s + "': an integer beyond 64 bits")
	}
	if err != nil {
		x.fail("The string '%s' cannot be converted to Integer", s)
	}
	return n
}

// integerOfString is Integer.new(s, radix) (radix 0: default).
func (x *fcall) integerOfString(s string, radix int) int64 {
	m := intLenient.FindStringSubmatch(s)
	if m == nil {
		x.fail("The string '%s' cannot be converted to Integer", s)
	}
	sign, body := x.signedBody(s, m, "Integer")
	return x.parseRubyInt(s, sign, body, radix)
}

// floatOfString is Float.new(s): a binary string through Integer(), the
// rest through Ruby's Float(), which reads decimals (a leading 0 is not
// octal) and hex.
func (x *fcall) floatOfString(s string) float64 {
	m := floatPattern.FindStringSubmatch(s)
	if m == nil {
		x.fail("The string '%s' cannot be converted to Float", s)
	}
	sign, body := x.signedBody(s, m, "Float")
	lower := strings.ToLower(body)
	var f float64
	switch {
	case strings.HasPrefix(lower, "0b"):
		if sign != "" || m[2] != "" {
			// Ruby's Float() does not read binary
			x.fail("The string '%s' cannot be converted to Float", s)
		}
		f = float64(x.parseRubyInt(s, "", body, 0))
	case strings.HasPrefix(lower, "0x"):
		f = float64(x.parseRubyInt(s, "", body, 16))
	default:
		var err error
		if f, err = strconv.ParseFloat(body, 64); err != nil || math.IsInf(f, 0) {
			x.unsupported("of '" + s + "': a float beyond the range of 64 bits")
		}
	}
	if sign == "-" {
		f = -f
	}
	return f
}

// numericOfString is Numeric.new(s): hex and binary strings that start
// with 0 through Integer(), the rest through Puppet's number scanner.
func (x *fcall) numericOfString(s string) any {
	if floatPattern.FindStringSubmatch(s) == nil {
		x.fail("The string '%s' cannot be converted to Numeric", s)
	}
	if len(s) > 1 && s[0] == '0' && strings.ContainsRune("bBxX", rune(s[1])) {
		return x.parseRubyInt(s, "", s, 0)
	}
	m := numericScan.FindStringSubmatch(s)
	if m == nil {
		// Puppet's scanner gives nothing, and Numeric.new fails on it
		x.fail("The string '%s' cannot be converted to Numeric", s)
	}
	sign, hex, whole, frac := m[1], m[2], m[3], m[4]
	if hex != "" {
		return x.parseRubyInt(s, sign, hex, 0)
	}
	if frac == "" {
		return x.parseRubyInt(s, sign, whole, 0)
	}
	f, err := strconv.ParseFloat(whole+frac, 64)
	rest := strings.TrimLeft(strings.TrimPrefix(frac, "."), "0")
	zeroExp := strings.Trim(whole, "0") == "" && rest != "" && (rest[0] == 'e' || rest[0] == 'E')
	if err != nil || math.IsInf(f, 0) || zeroExp {
		// Puppet's scanner gives nothing for 0 with an exponent and for an
		// infinite value, and Numeric.new fails on it
		x.fail("The string '%s' cannot be converted to Numeric", s)
	}
	if sign == "-" {
		f = -f
	}
	return f
}
