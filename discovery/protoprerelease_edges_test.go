package discovery

import (
	"strings"
	"testing"
)

// TestProtocolPrereleaseInSeries: a card (or an initialize) saying
// protocol_version "0.3.1-draft.1", a pre-release of a 0.3 version after
// 0.3.0 and so inside ">=0.3.0, <0.4.0" by SemVer precedence, was refused
// as "protocol version 0.3.1-draft.1 is not supported (… accepts >=0.3.0,
// <0.4.0)": a message the version contradicts (the constraint library
// leaves pre-releases out of every range). It is accepted; a pre-release
// of 0.3.0 itself (older than it) and of 0.4.0 are refused, saying they
// are pre-releases.
func TestProtocolPrereleaseInSeries(t *testing.T) {
	for _, v := range []string{"0.3.0", "0.3.7", "0.3.1-draft.1", "0.3.2-rc.1+build.5"} {
		if err := CheckProtocolVersion(v); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
	for _, v := range []string{"0.3.0-rc.1", "0.4.0-alpha", "0.2.9", "1.0.0-beta"} {
		err := CheckProtocolVersion(v)
		if err == nil {
			t.Errorf("%s accepted", v)
			continue
		}
		if strings.Contains(v, "-") && !strings.Contains(err.Error(), "pre-release") {
			t.Errorf("%s: %v, want it called a pre-release", v, err)
		}
	}
	card := `{"adapter": {"id": "org.test.pre", "name": "P", "version": "1.0.0", "protocol_version": "0.3.1-draft.1"}, "capabilities": {}, "skills": []}`
	if _, err := ParseCard([]byte(card), "adapter.json"); err != nil {
		t.Fatalf("card: %v", err)
	}
}
