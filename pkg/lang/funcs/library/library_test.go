package library

import (
	"strings"
	"testing"

	"github.com/mgmtpipe/mgmt/pkg/lang/funcs"
	_ "github.com/mgmtpipe/mgmt/pkg/lang/funcs/all"
)

// documented lists the library as the language's fact sheet describes it,
// module by module, without the modules that need the world, D-Bus or the
// http server resource.
var documented = map[string]string{
	"convert":        "format_bool int_to_str parse_bool str_to_float str_to_int to_float to_int",
	"datetime":       "format hour now print str_now weekday weekday_fast",
	"deploy":         "abspath binary_path bootstrap_packages directory file_exists readfile readfileabs",
	"encoding":       "base64_decode base64_encode decode_json decode_json_flexible",
	"example":        "answer errorbool flipflop int2str plus str2int vumeter",
	"example/nested": "hello",
	"fmt":            "printf",
	"golang":         "template",
	"iter":           "filter flatten map range reduce zip",
	"list":           "concat lookup",
	"local":          "pool vardir",
	"map":            "keys lookup values",
	"math":           "fortytwo minus1 mod pow sqrt",
	"net": "cidr_to_first cidr_to_ip cidr_to_last cidr_to_mask cidr_to_network cidr_to_prefix " +
		"interface_cidr ip_in_cidr is_mac macfmt macs oldmacfmt split_hostport url_parser wired_interface",
	"os": "args expand_home family file_exists home is_family_archlinux is_family_debian is_family_redhat " +
		"is_virtual modinfo_loaded parse_distro_uid readfile release system uid user_exists",
	"regexp":  "match",
	"strings": "contains has_prefix has_suffix join_nonempty left_pad replace_all right_pad split substr to_lower to_upper trim_space",
	"sys":     "cpu_count env getenv hasenv hostname load uptime",
	"test": "fastcount forkvloop forloop one_instance_a one_instance_b one_instance_c one_instance_d " +
		"one_instance_e one_instance_f one_instance_g one_instance_h one_stream slow_string",
	"sys/fwupd": "reboot_needed",
	"util":      "hostname_mapper",
	"":          "random1 panic_debug",
	"value":     "get get_bool get_float get_int get_str",
	// a sample of the standard library wrappers
	"golang/strings":  "trim_space join split_n last_index to_title",
	"golang/strconv":  "atoi itoa quote unquote parse_float format_int",
	"golang/math":     "sqrt is_nan inf floor",
	"golang/path":     "join base dir",
	"golang/filepath": "join rel abs",
	"golang/html":     "escape_string unescape_string",
	"golang/os":       "getenv hostname getpid",
	"golang/runtime":  "num_cpu version",
	"golang/rand":     "intn float64",
	"golang/exec":     "look_path",
}

func TestDocumentedFunctions(t *testing.T) {
	for m, names := range documented {
		for _, n := range strings.Fields(names) {
			if _, ok := funcs.Lookup(m, n); !ok {
				t.Errorf("%s.%s is not registered", m, n)
			}
		}
	}
}
