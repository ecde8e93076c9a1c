package eval

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mgmtpipe/mgmt/internal/account"
)

// GatherFacts reads this machine's facts the way Facter 4 reports them,
// for the facts the native engine can determine exactly: os, kernel,
// networking (interfaces with their addresses, the primary interface),
// processors, memory, identity, timezone, path, filesystems, fips_enabled,
// load averages, the legacy flat facts derived from them, and the facts
// Puppet adds (clientcert, clientversion, puppetversion, clientnoop).
// Facts it cannot determine (virtual, dmi, disks, ssh, custom facts of
// modules, ...) are absent; compiling with Options.StrictFacts refuses a
// manifest that reads one of them instead of taking it as undef.
func GatherFacts() map[string]any {
	f := map[string]any{}
	host, _ := os.Hostname()
	short, domain, _ := strings.Cut(host, ".")
	fqdn := host
	if domain == "" {
		if d := resolvDomain(); d != "" {
			domain, fqdn = d, host+"."+d
		}
	}
	kernel := strings.ToUpper(runtime.GOOS[:1]) + runtime.GOOS[1:]
	f["kernel"] = kernel
	uname := unameInfo()
	f["kernelrelease"] = uname.release
	ver, _, _ := strings.Cut(uname.release, "-")
	f["kernelversion"] = ver
	if parts := strings.Split(ver, "."); len(parts) >= 2 {
		f["kernelmajversion"] = parts[0] + "." + parts[1]
	}
	f["os"] = osFact(uname.machine)
	net := networkingFact(short, fqdn, domain)
	f["networking"] = net
	f["processors"] = processorsFact()
	if m := memoryFact(); m != nil {
		f["memory"] = m
	}
	f["identity"] = identityFact()
	zone, _ := time.Now().Zone()
	f["timezone"] = zone
	f["path"] = os.Getenv("PATH")
	if fs := filesystemsFact(); fs != "" {
		f["filesystems"] = fs
	}
	f["fips_enabled"] = strings.TrimSpace(readString("/proc/sys/crypto/fips_enabled")) == "1"
	if la := loadFact(); la != nil {
		f["load_averages"] = la
	}
	ds := map[string]any{"system": nil}
	for ifc, srv := range dhcpServers() {
		ds[ifc] = srv
		if ifc == net["primary"] {
			ds["system"] = srv
		}
	}
	f["dhcp_servers"] = ds
	addPuppetFacts(f, fqdn)
	addLegacyFacts(f)
	return f
}

// DefaultFacts is GatherFacts (kept for callers of the earlier name).
func DefaultFacts() map[string]any { return GatherFacts() }

type unameData struct{ release, machine string }

func unameInfo() unameData {
	return unameData{
		release: strings.TrimSpace(readString("/proc/sys/kernel/osrelease")),
		machine: machineName(),
	}
}

// machineName is uname -m.
func machineName() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "i686"
	}
	return runtime.GOARCH
}

func readString(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	return string(b)
}

func resolvDomain() string {
	for _, line := range strings.Split(readString("/etc/resolv.conf"), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "domain" {
			return f[1]
		}
	}
	return ""
}

func readOSRelease() map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(readString("/etc/os-release"), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if ok {
			out[k] = strings.Trim(v, `"'`)
		}
	}
	return out
}

// osFact builds the os fact (Facter's Linux resolution, Debian-like
// systems in full).
func osFact(machine string) map[string]any {
	osr := readOSRelease()
	name := osr["NAME"]
	if f := strings.Fields(name); len(f) > 0 {
		name = f[0]
	}
	family := name
	like := strings.ToLower(osr["ID"] + " " + osr["ID_LIKE"])
	switch {
	case strings.Contains(like, "debian") || strings.Contains(like, "ubuntu"):
		family = "Debian"
	case strings.Contains(like, "rhel") || strings.Contains(like, "fedora") || strings.Contains(like, "centos"):
		family = "RedHat"
	case strings.Contains(like, "suse"):
		family = "Suse"
	}
	full := osr["VERSION_ID"]
	if v := strings.TrimSpace(readString("/etc/debian_version")); v != "" && strings.ToLower(osr["ID"]) == "debian" && v[0] >= '0' && v[0] <= '9' {
		full = v
	}
	release := versionParts3(full)
	arch := machine
	if family == "Debian" {
		arch = map[string]string{"x86_64": "amd64", "aarch64": "arm64", "i686": "i386"}[machine]
		if arch == "" {
			arch = machine
		}
	}
	out := map[string]any{
		"architecture": arch, "family": family, "hardware": machine, "name": name,
		"release": release, "selinux": map[string]any{"enabled": selinuxEnabled()},
	}
	if osr["VERSION_CODENAME"] != "" {
		out["distro"] = map[string]any{
			"codename": osr["VERSION_CODENAME"], "description": osr["PRETTY_NAME"],
			"id": name, "release": versionParts3(full),
		}
	}
	return out
}

func versionParts3(full string) map[string]any {
	major, minor, _ := strings.Cut(full, ".")
	r := map[string]any{"full": full, "major": major}
	if minor != "" {
		minor, _, _ = strings.Cut(minor, ".")
		r["minor"] = minor
	}
	return r
}

func selinuxEnabled() bool {
	_, err := os.Stat("/sys/fs/selinux/enforce")
	return err == nil
}

// processorsFact reads /proc/cpuinfo and the CPU topology.
func processorsFact() map[string]any {
	var models []any
	physical := map[string]bool{}
	speed := ""
	f, err := os.Open("/proc/cpuinfo")
	if err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			switch k {
			case "model name":
				models = append(models, v)
			case "physical id":
				physical[v] = true
			case "cpu MHz":
				if speed == "" {
					if mhz, err := strconv.ParseFloat(v, 64); err == nil {
						speed = formatHz(mhz * 1e6)
					}
				}
			}
		}
		f.Close()
	}
	if s := readString("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"); s != "" {
		if khz, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			speed = formatHz(khz * 1e3)
		}
	}
	count := len(models)
	cores := map[string]bool{}
	threads := 1
	for i := 0; i < count; i++ {
		dir := fmt.Sprintf("/sys/devices/system/cpu/cpu%d/topology/", i)
		cores[strings.TrimSpace(readString(dir+"physical_package_id"))+"/"+strings.TrimSpace(readString(dir+"core_id"))] = true
		if sib := strings.TrimSpace(readString(dir + "thread_siblings_list")); sib != "" {
			threads = max(threads, countList(sib))
		}
	}
	phys := len(physical)
	if phys == 0 {
		phys = 1
	}
	out := map[string]any{"count": int64(count), "physicalcount": int64(phys), "models": models, "isa": "unknown"}
	if count > 0 {
		out["cores"] = int64(count / threads)
		out["threads"] = int64(threads)
	}
	if speed != "" {
		out["speed"] = speed
	}
	return out
}

func countList(s string) int {
	n := 0
	for _, part := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(part, "-")
		if !isRange {
			n++
			continue
		}
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		n += y - x + 1
	}
	return n
}

// formatHz renders a frequency as Facter does: "2.10 GHz".
func formatHz(hz float64) string {
	units := []string{"Hz", "kHz", "MHz", "GHz", "THz"}
	i := 0
	for hz >= 1000 && i < len(units)-1 {
		hz /= 1000
		i++
	}
	return fmt.Sprintf("%.2f %s", hz, units[i])
}

// formatBytes renders a size as Facter does: "23.54 GiB".
func formatBytes(n int64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"}
	f := float64(n)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return fmt.Sprintf("%.2f %s", f, units[i])
}

// memoryFact reads /proc/meminfo the way Facter does (available is
// MemFree + Buffers + Cached).
func memoryFact() map[string]any {
	info := map[string]int64{}
	for _, line := range strings.Split(readString("/proc/meminfo"), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			info[strings.TrimSuffix(f[0], ":")] = n * 1024
		}
	}
	total := info["MemTotal"]
	if total == 0 {
		return nil
	}
	avail := info["MemFree"] + info["Buffers"] + info["Cached"]
	out := map[string]any{"system": memStats(total, avail)}
	if st := info["SwapTotal"]; st > 0 {
		out["swap"] = memStats(st, info["SwapFree"])
	}
	return out
}

func memStats(total, avail int64) map[string]any {
	used := total - avail
	return map[string]any{
		"total": formatBytes(total), "total_bytes": total,
		"available": formatBytes(avail), "available_bytes": avail,
		"used": formatBytes(used), "used_bytes": used,
		"capacity": fmt.Sprintf("%.2f%%", float64(used)*100/float64(total)),
	}
}

func identityFact() map[string]any {
	out := map[string]any{"uid": int64(os.Getuid()), "gid": int64(os.Getgid()), "privileged": os.Geteuid() == 0}
	if u, err := account.LookupID(strconv.Itoa(os.Getuid())); err == nil {
		out["user"] = u.Username
	}
	if g, err := account.LookupGroupID(strconv.Itoa(os.Getgid())); err == nil {
		out["group"] = g.Name
	}
	return out
}

// filesystemsFact lists the block file systems the kernel supports, as
// Facter does.
func filesystemsFact() string {
	var out []string
	for _, line := range strings.Split(readString("/proc/filesystems"), "\n") {
		f := strings.Fields(line)
		if len(f) == 1 && f[0] != "fuseblk" {
			out = append(out, f[0])
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func loadFact() map[string]any {
	f := strings.Fields(readString("/proc/loadavg"))
	if len(f) < 3 {
		return nil
	}
	out := map[string]any{}
	for i, k := range []string{"1m", "5m", "15m"} {
		v, _ := strconv.ParseFloat(f[i], 64)
		out[k] = v
	}
	return out
}

var puppetVersion = regexp.MustCompile(`PUPPETVERSION\s*=\s*'([^']+)'`)

// addPuppetFacts adds what Puppet adds to Facter's facts; the version only
// when Puppet is installed.
func addPuppetFacts(f map[string]any, fqdn string) {
	f["clientcert"] = strings.ToLower(fqdn)
	f["clientnoop"] = false
	for _, p := range []string{"/usr/lib/ruby/vendor_ruby/puppet/version.rb", "/opt/puppetlabs/puppet/lib/ruby/vendor_ruby/puppet/version.rb"} {
		if m := puppetVersion.FindStringSubmatch(readString(p)); m != nil {
			f["clientversion"], f["puppetversion"] = m[1], m[1]
			return
		}
	}
}

// addLegacyFacts derives Facter's legacy flat facts from the structured
// ones.
func addLegacyFacts(f map[string]any) {
	o := f["os"].(map[string]any)
	rel := o["release"].(map[string]any)
	f["architecture"], f["hardwaremodel"], f["hardwareisa"] = o["architecture"], o["hardware"], "unknown"
	f["operatingsystem"], f["osfamily"] = o["name"], o["family"]
	f["operatingsystemrelease"], f["operatingsystemmajrelease"] = rel["full"], rel["major"]
	f["selinux"] = o["selinux"].(map[string]any)["enabled"]
	if d, ok := o["distro"].(map[string]any); ok {
		dr := d["release"].(map[string]any)
		f["lsbdistcodename"], f["lsbdistdescription"], f["lsbdistid"] = d["codename"], d["description"], d["id"]
		f["lsbdistrelease"], f["lsbmajdistrelease"] = dr["full"], dr["major"]
		if m, ok := dr["minor"]; ok {
			f["lsbminordistrelease"] = m
		}
	}
	p := f["processors"].(map[string]any)
	f["processorcount"], f["physicalprocessorcount"] = p["count"], p["physicalcount"]
	for i, m := range p["models"].([]any) {
		f["processor"+strconv.Itoa(i)] = m
	}
	id := f["identity"].(map[string]any)
	if u, ok := id["user"]; ok {
		f["id"] = u
	}
	if g, ok := id["group"]; ok {
		f["gid"] = g
	}
	if m, ok := f["memory"].(map[string]any); ok {
		sys := m["system"].(map[string]any)
		f["memorysize"], f["memoryfree"] = sys["total"], sys["available"]
		f["memorysize_mb"] = float64(sys["total_bytes"].(int64)) / 1048576
		f["memoryfree_mb"] = float64(sys["available_bytes"].(int64)) / 1048576
		if sw, ok := m["swap"].(map[string]any); ok {
			f["swapsize"], f["swapfree"] = sw["total"], sw["available"]
			f["swapsize_mb"] = float64(sw["total_bytes"].(int64)) / 1048576
			f["swapfree_mb"] = float64(sw["available_bytes"].(int64)) / 1048576
		}
	}
	addLegacyNetworking(f)
}

func addLegacyNetworking(f map[string]any) {
	n := f["networking"].(map[string]any)
	for _, k := range []string{"fqdn", "hostname", "domain"} {
		if v, ok := n[k]; ok {
			f[k] = v
		}
	}
	for _, k := range []string{"ip", "ip6", "mac", "netmask", "netmask6", "network", "network6", "scope6"} {
		legacy := map[string]string{"ip": "ipaddress", "ip6": "ipaddress6", "mac": "macaddress"}[k]
		if legacy == "" {
			legacy = k
		}
		if v, ok := n[k]; ok {
			f[legacy] = v
		}
	}
	ifaces, _ := n["interfaces"].(map[string]any)
	var names []string
	for name, v := range ifaces {
		names = append(names, name)
		iface := v.(map[string]any)
		for k, legacy := range map[string]string{"ip": "ipaddress", "ip6": "ipaddress6", "mac": "macaddress",
			"mtu": "mtu", "netmask": "netmask", "netmask6": "netmask6", "network": "network", "network6": "network6", "scope6": "scope6"} {
			if x, ok := iface[k]; ok {
				f[legacy+"_"+name] = x
			}
		}
	}
	sort.Strings(names)
	if len(names) > 0 {
		f["interfaces"] = strings.Join(names, ",")
	}
}

// AbsentFacts lists the legacy facts Facter would not set on this
// machine, given the facts GatherFacts found (a host without a domain has
// no domain fact): reading one gives undef, as with Facter, instead of
// refusing the manifest.
func AbsentFacts(f map[string]any) map[string]bool {
	out := map[string]bool{}
	for _, n := range strings.Fields(`domain ipaddress ipaddress6 macaddress netmask netmask6 network
		network6 scope6 swapsize swapfree swapsize_mb swapfree_mb lsbdistcodename lsbdistdescription
		lsbdistid lsbdistrelease lsbmajdistrelease lsbminordistrelease memorysize memoryfree
		memorysize_mb memoryfree_mb`) {
		if _, ok := f[n]; !ok {
			out[n] = true
		}
	}
	// Facter's virtual resolution starts by reading /proc/1/environ; when
	// that is refused it gives up and sets neither virtual nor is_virtual
	if _, err := os.ReadFile("/proc/1/environ"); errors.Is(err, fs.ErrPermission) {
		out["virtual"], out["is_virtual"] = true, true
	}
	n, _ := f["networking"].(map[string]any)
	ifaces, _ := n["interfaces"].(map[string]any)
	for name := range ifaces {
		for _, k := range []string{"ipaddress", "ipaddress6", "macaddress", "mtu", "netmask", "netmask6", "network", "network6", "scope6"} {
			if _, ok := f[k+"_"+name]; !ok {
				out[k+"_"+name] = true
			}
		}
	}
	return out
}

// moduleFactNames lists the custom facts modules define in Ruby
// (lib/facter/*.rb): the native engine cannot compute them.
func moduleFactNames(modulePath []string) map[string]bool {
	out := map[string]bool{}
	re := regexp.MustCompile(`Facter\.add\(\s*[:'"]([A-Za-z0-9_]+)`)
	for _, dir := range modulePath {
		files, _ := filepath.Glob(filepath.Join(dir, "*", "lib", "facter", "*.rb"))
		for _, file := range files {
			for _, m := range re.FindAllStringSubmatch(readString(file), -1) {
				out[m[1]] = true
			}
			out[strings.TrimSuffix(filepath.Base(file), ".rb")] = true
		}
	}
	return out
}

// facterFacts are the names of Facter 4's core facts, structured and
// legacy; facterPatterns the legacy ones with an interface, device or
// number in their name.
var facterFacts = map[string]bool{}

var facterPatterns = regexp.MustCompile(`^(ipaddress6?|macaddress|mtu|netmask6?|network6?|scope6|dhcp_servers|processor|blockdevice|ssh|sshfp|sp|ec2|gce|zone|ldom|system_profiler|dmi|bios|board|chassis|lsb|memory|swap|uptime|selinux|zfs|zpool|xen|macosx|windows|virtual|is_)`)

func init() {
	for _, n := range strings.Fields(`aio_agent_version augeas az_metadata cloud disks dmi ec2_metadata
		ec2_userdata facterversion filesystems fips_enabled gce hypervisors identity is_virtual kernel
		kernelmajversion kernelrelease kernelversion ldom load_averages memory mountpoints networking
		nim_type os partitions path processors ruby solaris_zones ssh system_profiler system_uptime
		timezone virtual xen zfs_featurenumbers zfs_version zpool_featureflags zpool_featurenumbers
		zpool_version dhcp_servers architecture augeasversion blockdevices bios_release_date bios_vendor
		bios_version boardassettag boardmanufacturer boardproductname boardserialnumber chassisassettag
		chassistype domain fqdn gid hardwareisa hardwaremodel hostname id interfaces ipaddress ipaddress6
		lsbdistcodename lsbdistdescription lsbdistid lsbdistrelease lsbmajdistrelease lsbminordistrelease
		lsbrelease macaddress manufacturer memoryfree memoryfree_mb memorysize memorysize_mb netmask
		netmask6 network network6 operatingsystem operatingsystemmajrelease operatingsystemrelease
		osfamily physicalprocessorcount processorcount productname rubyplatform rubysitedir rubyversion
		scope6 selinux serialnumber swapencrypted swapfree swapfree_mb swapsize swapsize_mb uptime
		uptime_days uptime_hours uptime_seconds uuid xendomains zonename zones clientcert clientversion
		clientnoop puppetversion agent_specified_environment`) {
		facterFacts[n] = true
	}
}

func facterFact(name string) bool {
	return facterFacts[name] || facterPatterns.MatchString(name)
}
