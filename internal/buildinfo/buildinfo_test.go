package buildinfo

import (
	"runtime/debug"
	"testing"

	"github.com/Masterminds/semver/v3"
)

func TestVersionIsSemVer(t *testing.T) {
	set := func(kv ...string) []debug.BuildSetting {
		var out []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			out = append(out, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		bi   *debug.BuildInfo
		want string
	}{
		{nil, Release + "+devel"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "1.2.3"},
		{&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261206010203-abcdefabcdef"}}, "0.0.0-20261206010203-abcdefabcdef"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: set("vcs.revision", "1a2b3c4d5e6f7a8b9c0d", "vcs.modified", "true")}, Release + "+devel.1a2b3c4d5e6f.dirty"},
		{&debug.BuildInfo{Main: debug.Module{Version: ""}, Settings: set("vcs.modified", "false", "vcs.revision", "abc")}, Release + "+devel.abc"},
		{&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: set("vcs.revision", "not/alnum")}, Release + "+devel"},
	} {
		got := fromBuild(tc.bi)
		if got != tc.want {
			t.Errorf("fromBuild(%+v) = %q, want %q", tc.bi, got, tc.want)
		}
		if _, err := semver.StrictNewVersion(got); err != nil {
			t.Errorf("%q is not strict SemVer: %v", got, err)
		}
	}
	if _, err := semver.StrictNewVersion(Version()); err != nil {
		t.Errorf("Version() %q is not strict SemVer: %v", Version(), err)
	}
}
