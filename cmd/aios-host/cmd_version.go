package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

func runVersion(c *cli, args []string) int {
	fs := c.flags("version", "version", "Print the version of aios-host, of Go, and of the ABI wire format.")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.usageError(fs, "version takes no arguments, got %q", pos)
	}
	fmt.Fprintf(c.stdout, "aios-host %s (%s, %s/%s, abi format %d)\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH, abi.FormatVersion)
	fmt.Fprintf(c.stdout, "wasm engines: %s\n", strings.Join(wasm.Engines(), ", "))
	return exitOK
}

// buildVersion is the module version, or the VCS revision for a build from
// a checkout.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if (v == "" || v == "(devel)") && rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		return "devel-" + rev + dirty
	}
	if v == "" {
		return "(devel)"
	}
	return v
}
