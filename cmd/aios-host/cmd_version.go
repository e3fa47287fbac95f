package main

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/buildinfo"
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

// buildVersion is the build's version (buildinfo.Version): a tagged
// module's version, else the tree's release with the checkout's revision
// as build metadata (0.1.0+devel.1a2b3c4d5e6f), as the host's card,
// /health and the MCP handshakes announce it.
func buildVersion() string { return buildinfo.Version() }
