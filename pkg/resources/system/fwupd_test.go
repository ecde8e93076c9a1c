package system

import (
	"crypto/sha1"
	"encoding/hex"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mgmtpipe/mgmt/internal/fwupd"
	"github.com/mgmtpipe/mgmt/pkg/resources/system/systemtest"
)

// The fake webcam of fwupd's test plugin, offered releases 1.2.3 and
// 1.2.4 by the local remote fwupd-tests (package fwupd-tests).
const (
	fakeDeviceID   = "08d460be0f1f9f128413f816022a6439e0078018"
	fakeDeviceGUID = "B585990A-003E-5270-89D5-3705A17F9A43"
)

func TestFwupdValidate(t *testing.T) {
	no := false
	for _, r := range []interface{ Validate() error }{
		&FwupdDeviceRes{},
		&FwupdRemoteRes{},
		&FwupdRemoteRes{RefreshAge: "-1h"},
		&FwupdRemoteRes{RefreshAge: "1h", Enabled: &no},
		&FwupdSystemRes{State: "latest"},
		&FwupdSystemRes{State: "newest", Exclude: []string{" "}},
	} {
		if err := r.Validate(); err == nil {
			t.Errorf("%+v: no error", r)
		}
	}
}

func TestFwupdReleaseURI(t *testing.T) {
	rel := fwupd.Release{Version: "1", Locations: []string{"./fw.cab"}}
	for _, c := range []struct {
		rm   fwupd.Remote
		want string
	}{
		{fwupd.Remote{Cache: "/usr/share/tests/meta.xml"}, "file:///usr/share/tests/fw.cab"},
		{fwupd.Remote{MetadataURI: "https://example.invalid/d/firmware.xml.zst"}, "https://example.invalid/d/fw.cab"},
		{fwupd.Remote{FirmwareBaseURI: "https://mirror.invalid/fw/", MetadataURI: "https://example.invalid/x"}, "https://mirror.invalid/fw/fw.cab"},
	} {
		if got, err := releaseURI(rel, c.rm); err != nil || got != c.want {
			t.Errorf("%+v: got %q, %v, want %q", c.rm, got, err, c.want)
		}
	}
	if _, err := releaseURI(rel, fwupd.Remote{}); err == nil {
		t.Error("a relative location without a base: no error")
	}
}

// fakeDeviceVersion asks fwupdmgr for the fake webcam's version.
func fakeDeviceVersion(t *testing.T) string {
	t.Helper()
	out, _ := exec.Command("fwupdmgr", "get-devices", "--json", "--no-unreported-check").Output()
	s := string(out)
	i := strings.Index(s, fakeDeviceID)
	if i < 0 {
		return ""
	}
	j := strings.Index(s[i:], `"Version" : "`)
	if j < 0 {
		return ""
	}
	v := s[i+j+len(`"Version" : "`):]
	return v[:strings.IndexByte(v, '"')]
}

// fwupdTestData is where the package fwupd-tests keeps the test remote's
// metadata and firmware archives.
const fwupdTestData = "/usr/share/installed-tests/fwupd/"

// fixTestChecksums makes the test remote's metadata list the SHA-1 of the
// archives the package ships: Debian builds the archives again, so the
// stock metadata names other bytes, and the resource (rightly) refuses
// an archive whose checksum differs.
func fixTestChecksums(t *testing.T) {
	t.Helper()
	meta, err := os.ReadFile(fwupdTestData + "fwupd-tests.xml")
	if err != nil {
		t.Fatal(err)
	}
	for _, cab := range []string{"fakedevice123.cab", "fakedevice124.cab"} {
		data, err := os.ReadFile(fwupdTestData + cab)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha1.Sum(data)
		re := regexp.MustCompile(`(<checksum filename="` + regexp.QuoteMeta(cab) + `" target="container" type="sha1">)[0-9a-f]+`)
		meta = re.ReplaceAll(meta, []byte("${1}"+hex.EncodeToString(sum[:])))
	}
	if err := os.WriteFile(fwupdTestData+"fwupd-tests.xml", meta, 0o644); err != nil {
		t.Fatal(err)
	}
}

// startFwupdTestDevices turns on the daemon's test devices and restarts it.
func startFwupdTestDevices(t *testing.T) {
	t.Helper()
	fixTestChecksums(t)
	conf, _ := os.ReadFile("/etc/fwupd/fwupd.conf")
	if !strings.Contains(string(conf), "TestDevices=true") {
		if err := os.WriteFile("/etc/fwupd/fwupd.conf", append(conf, "TestDevices=true\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sh(t, "systemctl restart fwupd")
	systemtest.Eventually(t, time.Minute, func() string {
		if v := fakeDeviceVersion(t); v == "" {
			return "fwupd shows no test device"
		}
		return ""
	})
}

// TestLiveFwupd drives the real fwupd daemon in the container: a remote
// is disabled and enabled again, the fake webcam of its test
// plugin gets firmware 1.2.3 installed (downloaded from the remote,
// checksum verified, handed to the daemon), then the newest release, and
// a daemon restart (which forgets the installed version) or a remote
// disabled by hand are repaired.
func TestLiveFwupd(t *testing.T) {
	systemtest.Live(t)
	startFwupdTestDevices(t)

	no, yes := false, true
	rm := &FwupdRemoteRes{Enabled: &no}
	rm.SetKind("fwupd:remote")
	rm.SetName("vendor-directory") // the test remote's file is under /usr, which fwupd may not write
	rh := newHarness(t, rm)
	rh.watch()
	rh.converge()
	if out := sh(t, "fwupdmgr get-remotes --json"); !strings.Contains(out, "vendor-directory") || !strings.Contains(out, `"Enabled" : false`) {
		t.Fatalf("remote not disabled:\n%s", out)
	}
	rm.Enabled = &yes
	rh.converge()
	rh.drain()
	sh(t, "fwupdmgr disable-remote vendor-directory </dev/null")
	rh.waitEvent("fwupdmgr disable-remote")
	rh.converge()

	dev := &FwupdDeviceRes{Device: fakeDeviceGUID, Version: "1.2.3"}
	dev.SetKind("fwupd:device")
	dev.SetName("webcam")
	dh := newHarness(t, dev)
	dh.watch()
	dh.check(false, false)
	if v := fakeDeviceVersion(t); v != "1.2.2" {
		t.Fatalf("noop changed the version to %q", v)
	}
	dh.converge()
	if v := fakeDeviceVersion(t); v != "1.2.3" {
		t.Fatalf("version %q after the install, want 1.2.3", v)
	}
	dh.drain()
	sh(t, "systemctl restart fwupd")
	dh.waitEvent("fwupd restarted")
	systemtest.Eventually(t, time.Minute, func() string {
		if fakeDeviceVersion(t) == "" {
			return "no device after the restart"
		}
		return ""
	})
	dh.converge()
	if v := fakeDeviceVersion(t); v != "1.2.3" {
		t.Fatalf("version %q after the repair, want 1.2.3", v)
	}

	dev.Version = "9.9.9"
	if _, err := dev.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), `"1.2.4"`) {
		t.Fatalf("missing release: got %v, want the available ones listed", err)
	}

	sys := &FwupdSystemRes{State: "newest"}
	sys.SetKind("fwupd:system")
	sys.SetName("all")
	sh := newHarness(t, sys)
	sh.converge()
	if v := fakeDeviceVersion(t); v != "1.2.4" {
		t.Fatalf("version %q after fwupd:system, want 1.2.4", v)
	}
	dev.Version = "1.2.3"
	if _, err := dev.CheckApply(t.Context(), true); err == nil || !strings.Contains(err.Error(), "allow_downgrade") {
		t.Fatalf("downgrade: got %v", err)
	}
}
