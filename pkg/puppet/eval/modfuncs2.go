package eval

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// More functions that modules write in Ruby, done the same way in Go
// (see modfuncs.go): memcached's max_memory and postgresql's
// postgresql_acls_to_resources_hash. Inputs outside what the Go code
// reproduces exactly are refused.
func init() {
	register(true, map[string]func(x *fcall) any{
		"memcached::max_memory":                         memcachedMaxMemory,
		"postgresql::postgresql_acls_to_resources_hash": postgresqlACLs,
		"postgresql::postgresql_password":               postgresqlPassword,
	})
}

// memorySize splits the memorysize fact as the Ruby does:
// ([0-9.e+-]*)\s*([^bB]?) from the start.
var memorySize = regexp.MustCompile(`^([0-9.e+-]*)[ \t\r\n\f\v]*((?s:[^bB])?)`)

// decimal is a number String#to_f reads whole.
var decimal = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// memcachedMaxMemory is memcached::max_memory(arg): arg megabytes, or a
// percentage (default 95%) of the memorysize fact, rounded down.
func memcachedMaxMemory(x *fcall) any {
	x.arity(1, 1)
	arg := x.args[0]
	if truthy(arg) {
		switch v := arg.(type) {
		case int64:
			return v
		case string:
			if !strings.HasSuffix(v, "%") {
				return rubyStringToI(x, v)
			}
		default:
			x.unsupported("of a " + typeName(arg))
		}
	}
	pct := "95%"
	if truthy(arg) {
		pct = arg.(string)
	}
	facts, _ := x.e.top.vars["facts"].(*hash)
	var memsize any
	if facts != nil {
		memsize = facts.m["memorysize"]
	}
	ms, ok := memsize.(string)
	if !ok {
		x.unsupported("without the memorysize fact")
	}
	m := memorySize.FindStringSubmatch(ms)
	if !decimal.MatchString(m[1]) {
		x.unsupported("of the memory size " + quoted(ms))
	}
	value, _ := strconv.ParseFloat(m[1], 64)
	shift, known := map[string]uint{"": 0, "k": 10, "M": 20, "G": 30, "T": 40, "E": 50}[m[2]]
	if !known {
		x.fail("memcached_max_memory(): Unknown prefix %s", m[2])
	}
	bytes := value * float64(uint64(1)<<shift)
	if bytes >= math.MaxInt64 {
		x.unsupported("of the memory size " + quoted(ms))
	}
	p := strings.TrimSuffix(pct, "%")
	if !decimal.MatchString(p) {
		x.unsupported("of the percentage " + quoted(pct))
	}
	percent, _ := strconv.ParseFloat(p, 64)
	mb := int64(bytes) / (1 << 20)
	return int64(math.Floor(float64(mb) * (percent / 100.0)))
}

// rubyStringToI is String#to_i for the strings it reads whole or as a
// leading run of digits; others are refused.
func rubyStringToI(x *fcall, s string) int64 {
	m := regexp.MustCompile(`^[0-9]+`).FindString(s)
	if m == "" && s != "" || m != s && strings.ContainsAny(s[len(m):], "_0123456789") {
		x.unsupported("of " + quoted(s))
	}
	n, err := strconv.ParseInt("0"+m, 10, 64)
	if err != nil {
		x.unsupported("of " + quoted(s))
	}
	return n
}

// postgresqlACLs is postgresql::postgresql_acls_to_resources_hash(acls,
// id, offset): each pg_hba.conf line becomes the parameters of a
// pg_hba_rule, keyed by id and the line's index.
func postgresqlACLs(x *fcall) any {
	x.arity(3, 3)
	acls, ok := x.args[0].([]any)
	id, idOK := x.args[1].(string)
	offset, offOK := x.args[2].(int64)
	if !ok || !idOK || id == "" || !offOK || offset < 0 {
		x.unsupported("with arguments other than Array[String], String[1], Integer[0]")
	}
	lines := make([]string, len(acls))
	for i, a := range acls {
		if lines[i], ok = a.(string); !ok {
			x.unsupported("with an acl that is not a String")
		}
	}
	out := newHash()
	for _, acl := range lines {
		index := 0
		for lines[index] != acl {
			index++
		}
		parts := strings.FieldsFunc(acl, func(r rune) bool { return strings.ContainsRune(" \t\n\v\f\r", r) })
		if len(parts) < 4 {
			x.fail("postgresql::postgresql_acls_to_resources_hash(): acl line %d does not have enough parts", index)
		}
		part := func(i int) any {
			if i < len(parts) {
				return parts[i]
			}
			return nil
		}
		res := newHash()
		res.set("type", parts[0])
		res.set("database", parts[1])
		res.set("user", parts[2])
		res.set("order", fmt.Sprintf("%03d", offset+int64(index)))
		rest := func(from int) {
			if len(parts) > from {
				res.set("auth_option", strings.Join(parts[from:], " "))
			}
		}
		switch {
		case parts[0] == "local":
			res.set("auth_method", parts[3])
			rest(4)
		case len(parts) > 4 && parts[4][0] >= '0' && parts[4][0] <= '9':
			res.set("address", parts[3]+" "+parts[4])
			res.set("auth_method", part(5))
			rest(6)
		default:
			res.set("address", parts[3])
			res.set("auth_method", part(4))
			rest(5)
		}
		out.set(fmt.Sprintf("postgresql class generated rule %s %d", id, index), res)
	}
	return out
}

// postgresqlPassword is postgresql::postgresql_password(username,
// password): "md5" and the MD5 of the password and the user name.
func postgresqlPassword(x *fcall) any {
	x.arity(2, 2)
	var s [2]string
	for i, a := range x.args {
		switch v := a.(type) {
		case string:
			if v == "" {
				x.unsupported("with an empty string")
			}
			s[i] = v
		case int64:
			s[i] = strconv.FormatInt(v, 10)
		default:
			x.unsupported("with a " + typeName(a))
		}
	}
	sum := md5.Sum([]byte(s[1] + s[0]))
	return "md5" + hex.EncodeToString(sum[:])
}
