package cli

import (
	"runtime/debug"
	"testing"
)

func TestBuildInfoVersion(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	for _, c := range []struct {
		bi   debug.BuildInfo
		want string
	}{
		{debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261125231450-ee4826b0a1b2"}, Settings: vcs("ee4826b0a1b2c3d4", "false")}, "v0.0.0-20261125231450-ee4826b0a1b2"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("ee4826b0a1b2c3d4", "false")}, "ee4826b0a1b2"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("ee4826b0a1b2c3d4", "true")}, "ee4826b0a1b2-dirty"},
		{debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
	} {
		if got := buildInfoVersion(&c.bi); got != c.want {
			t.Errorf("%+v: got %q, want %q", c.bi, got, c.want)
		}
	}
}
