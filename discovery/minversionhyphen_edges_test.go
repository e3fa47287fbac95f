package discovery

import (
	"strings"
	"testing"
)

// TestMinVersionHyphenRefused: requirements.software.min_version is
// compared with the installed version on the upstream part only. A
// min_version with a hyphen was read as Debian's upstream-revision:
// 2.3-5 had its revision dropped without a word, and a SemVer
// pre-release, 2.0.0-rc1, was taken for 2.0.0, so the installed 2.0.0~rc1
// counted as "older than min_version 2.0.0-rc1". The card is refused now,
// naming the field and the ways to write what was meant.
func TestMinVersionHyphenRefused(t *testing.T) {
	card := func(min string) []byte {
		return []byte(`{"adapter": {"id": "org.example.a", "name": "A", "version": "1.0.0", "protocol_version": "0.3.0"},
  "capabilities": {}, "skills": [], "endpoints": {"rpc": "unix:///run/a.sock"},
  "requirements": {"software": {"name": "A", "min_version": "` + min + `", "detection": {"executable": "/usr/bin/a"}}}}`)
	}
	for _, ok := range []string{"100.0", "2.0.0~rc1", "1:2.3", "v1.2", "2.3+dfsg"} {
		if _, err := ParseCard(card(ok), "plugins/a/adapter.json"); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, tc := range []struct{ min, want string }{{"2.0.0-rc1", "2.0.0~rc1"}, {"2.3-5", "2.3"}, {"1:2.3-1", "1:2.3"}} {
		_, err := ParseCard(card(tc.min), "plugins/a/adapter.json")
		if err == nil || !strings.Contains(err.Error(), "requirements.software.min_version") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want a refusal naming the field and %s", tc.min, err, tc.want)
		}
		if _, err := VersionAtLeast("2.0.0~rc1-1", tc.min); err == nil || !strings.Contains(err.Error(), "min_version") {
			t.Errorf("VersionAtLeast(2.0.0~rc1-1, %s): err = %v, want one about min_version", tc.min, err)
		}
	}
}
