//go:build unix

package mcp

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCommandFoundInEnvPATH: a stdio server whose env sets PATH, to the
// folder its command is in ("command: node" with env PATH naming the
// node to run, as MCP client configurations commonly do), had its command
// looked up in the host's PATH: not found ("executable file not found in
// $PATH", though the PATH it was given holds it), or another program of
// that name was run. The command is looked up in the PATH the server is
// given first, as env(1) does, then in the host's.
func TestCommandFoundInEnvPATH(t *testing.T) {
	cfg := fakeConfig(t, "good")
	dir := t.TempDir()
	script := "#!/bin/sh\nexec '" + cfg.Command + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "aios-probe-mcp-server"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	// The host's PATH holds a program of that name which is no MCP server.
	decoy := t.TempDir()
	if err := os.WriteFile(filepath.Join(decoy, "aios-probe-mcp-server"), []byte("#!/bin/sh\necho not an MCP server >&2\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", decoy+string(os.PathListSeparator)+os.Getenv("PATH"))
	cfg.Command = "aios-probe-mcp-server"
	cfg.Env["PATH"] = dir + string(os.PathListSeparator) + os.Getenv("PATH")
	_, rec, logs, err := startBridge(t, map[string]ServerConfig{"p": cfg})
	if err != nil {
		t.Fatalf("%v\n%s", err, logs)
	}
	if names := rec.toolNames("org.aios.mcp.p"); !contains(names, "mcp-p-echo") {
		t.Errorf("tools %v: the server in the env's PATH was not the one run", names)
	}
}
