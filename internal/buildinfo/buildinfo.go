// Package buildinfo is the version of aios-host that all its parts
// announce: `aios-host version`, the host's own Adapter Card and /health
// (server), serverInfo to MCP clients (mcpserver) and clientInfo to MCP
// servers (runtimes/mcp). Each said "0.1.0" of its own but the MCP
// server, which said the build's "devel-<revision>", not a SemVer version
// as a card's must be.
package buildinfo

import (
	"runtime/debug"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
)

// Release is the version of this source tree.
const Release = "0.1.0"

// Version is the build's version, a strict SemVer version: the module
// version of a build of a tagged module (go install …@v1.2.3: 1.2.3),
// else Release with build metadata naming a checkout's revision
// (0.1.0+devel.1a2b3c4d5e6f, .dirty when it had changes), or
// 0.1.0+devel when the build has no revision (go test).
func Version() string { return version() }

var version = sync.OnceValue(func() string {
	bi, _ := debug.ReadBuildInfo()
	return fromBuild(bi)
})

func fromBuild(bi *debug.BuildInfo) string {
	if bi == nil {
		return Release + "+devel"
	}
	if v, ok := strings.CutPrefix(bi.Main.Version, "v"); ok {
		if _, err := semver.StrictNewVersion(v); err == nil {
			return v
		}
	}
	meta := "devel"
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if rev := s.Value; rev != "" && isAlnum(rev) {
				meta += "." + rev[:min(len(rev), 12)]
			}
		}
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.modified" && s.Value == "true" {
			meta += ".dirty"
		}
	}
	return Release + "+" + meta
}

// isAlnum: a SemVer build identifier is [0-9A-Za-z-]+.
func isAlnum(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-') {
			return false
		}
	}
	return true
}
