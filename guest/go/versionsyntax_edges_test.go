package aios

import (
	"strings"
	"testing"

	"github.com/Masterminds/semver/v3"
)

// TestToolVersionCheckedWhereDeclared: a tool registered with a version
// that is not strict SemVer ("1.0", "v1.2.0") loaded into the guest
// without a word and failed the whole module at the host's load, the
// error naming the .wasm file, not the line that registered it, where the
// JS and Python SDKs (and the tool name here) refuse it where it is
// declared. Handle, HandleFunc and HandleRaw panic now, naming the tool
// and the form wanted, by the registry's rule (checked against it here);
// strict versions, with a pre-release or build metadata, register.
func TestToolVersionCheckedWhereDeclared(t *testing.T) {
	for _, v := range []string{"1.0", "v1.2.0", "1.0.0-01", " 1.0.0", "latest", "01.0.0", "1.0.0-", "1.0.0+", "1.0.0-a..b",
		"1.0.0+a_b", "99999999999999999999.0.0", "1.2.3.4", "1.0.0-rc.1", "2.0.0-0a.x-y", "1.0.0+build.05", "0.0.0", "1.0.0-0"} {
		_, serr := semver.StrictNewVersion(v)
		got := registerPanic(t, "probe-version", func() {
			Handle(Tool{Name: "probe-version", Version: v}, func(c *Call, p any) (any, error) { return nil, nil })
		})
		switch {
		case serr != nil && (!strings.Contains(got, "tool probe-version:") || !strings.Contains(got, `"`+v+`"`) || !strings.Contains(got, "MAJOR.MINOR.PATCH")):
			t.Errorf("version %q (the registry: %v): panic %q; want one naming the tool, the version and the form", v, serr, got)
		case serr == nil && got != "":
			t.Errorf("version %q, strict SemVer, was refused: %s", v, got)
		}
	}
}
