//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stubbornMCPEnv makes the test binary, started as an MCP server of
// mcp.servers, a server that answers the handshake and tools/list, then
// ignores SIGTERM, SIGINT and the end of its stdin: closing it takes the
// bridge's whole wait (stdin closed, SIGTERM, SIGKILL). It writes its pid
// to the file the variable names.
const stubbornMCPEnv = "AIOS_PROBE_STUBBORN_MCP"

func init() {
	pidFile := os.Getenv(stubbornMCPEnv)
	if pidFile == "" {
		return
	}
	signal.Ignore(syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	_ = os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())), 0o600)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &m) != nil || m.ID == nil {
			continue
		}
		var result any
		switch m.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": m.Params.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "stubborn", "version": "1.0.0"}}
		case "tools/list":
			result = map[string]any{"tools": []any{map[string]any{"name": "echo", "description": "echo", "inputSchema": map[string]any{"type": "object"}}}}
		default:
			fmt.Printf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no such method"}}`+"\n", m.ID)
			continue
		}
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "result": result})
		fmt.Printf("%s\n", b)
	}
	select {} // stdin closed: stay until killed
}

// stubbornServers writes a configuration with n stubborn MCP servers
// (stubbornMCPEnv) and returns it and the files their pids go to.
func stubbornServers(t *testing.T, n int) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	var cfg strings.Builder
	cfg.WriteString("mcp:\n  servers:\n")
	var pids []string
	for i := range n {
		pid := filepath.Join(dir, fmt.Sprintf("s%d.pid", i))
		pids = append(pids, pid)
		fmt.Fprintf(&cfg, "    s%d:\n      command: %q\n      args: [\"-test.run=^$\"]\n      env: {%s: %q}\n", i, os.Args[0], stubbornMCPEnv, pid)
	}
	file := filepath.Join(dir, "aios.yaml")
	if err := os.WriteFile(file, []byte(cfg.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, p := range pids { // what the host left behind
			if pid := readPid(p); pid > 0 {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return file, pids
}

func readPid(file string) int {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}

// alive reports whether pid is a process that has not ended (a zombie
// not yet reaped by its new parent has ended).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return !os.IsNotExist(err) // no /proc: kill(0) said it is there
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z' && s[i+2] != 'X'
	}
	return true
}

// signalUntilExit sends sig to cmd every 100 ms until it exits (the
// first starts the shutdown; those within sameSignalWindow of it are
// taken for the same, a later one forces the exit), and returns its exit
// code.
func signalUntilExit(t *testing.T, cmd *exec.Cmd, done chan error, stderr *syncBuffer, sig syscall.Signal) int {
	t.Helper()
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		_ = cmd.Process.Signal(sig)
		select {
		case err := <-done:
			done <- err
			return cmd.ProcessState.ExitCode()
		case <-deadline:
			t.Fatalf("still running 60 s after the first %v:\n%s", sig, stderr.String())
		case <-tick.C:
		}
	}
}

// TestMCPSecondSignalForcesExit: a second SIGINT during the shutdown of
// `aios-host mcp` (an MCP server that will not go, a call that will not
// end) was taken by the signal context of the first and ignored, so an
// operator's second Ctrl-C did nothing until every server had been
// waited for. It exits at once, as run's does.
func TestMCPSecondSignalForcesExit(t *testing.T) {
	e := newEnv(t)
	cfg, _ := stubbornServers(t, 6) // about 2 s each to close
	in, keep, err := os.Pipe()      // the MCP client's end, kept open
	if err != nil {
		t.Fatal(err)
	}
	defer keep.Close()
	defer in.Close()
	cmd, stderr, done := probeChildIn(t, in, "serving MCP over stdio", "mcp", "--config", cfg, "--plugins", e.plugins, "--data", e.data, "--log-level", "info")
	code := signalUntilExit(t, cmd, done, stderr, syscall.SIGINT)
	if code != exitFail || !strings.Contains(stderr.String(), "second signal during shutdown") {
		t.Fatalf("mcp after repeated SIGINTs: exit %d, want %d after a second signal:\n%s", code, exitFail, stderr.String())
	}
}

// TestForcedExitKillsChildren: a second signal during the shutdown of run
// or mcp exits without waiting for it, and the child processes it would
// have ended were left behind: an MCP server that ignores the end of its
// stdin and SIGTERM (or a Python worker busy in a tool) outlived the
// host for good. They are killed on the way out.
func TestForcedExitKillsChildren(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc: the children of a forced exit are not looked for here")
	}
	for _, c := range []struct{ cmd, marker string }{
		{"run", "aios-host serving"},
		{"mcp", "serving MCP over stdio"},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			e := newEnv(t)
			cfg, pids := stubbornServers(t, 6)
			in, keep, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer keep.Close()
			defer in.Close()
			args := []string{c.cmd, "--config", cfg, "--plugins", e.plugins, "--data", e.data, "--log-level", "info"}
			if c.cmd == "run" {
				args = append(args, "--socket", filepath.Join(t.TempDir(), "h.sock"))
			}
			cmd, stderr, done := probeChildIn(t, in, c.marker, args...)
			if code := signalUntilExit(t, cmd, done, stderr, syscall.SIGINT); code != exitFail || !strings.Contains(stderr.String(), "second signal during shutdown") {
				t.Fatalf("%s after repeated SIGINTs: exit %d, want %d after a second signal:\n%s", c.cmd, code, exitFail, stderr.String())
			}
			deadline := time.Now().Add(30 * time.Second)
			for _, p := range pids {
				pid := readPid(p)
				if pid == 0 {
					t.Fatalf("server pid file %s not written", p)
				}
				for alive(pid) {
					if time.Now().After(deadline) {
						t.Fatalf("MCP server %d still running 30 s after %s's forced exit", pid, c.cmd)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}

// TestCallSecondSignalForcesExit: a second SIGINT during the shutdown of
// `aios-host call` (MCP servers that will not go) was taken by the signal
// context of the first and ignored, as mcp's was: the operator waited for
// every server. It exits at once, as run's and mcp's do.
func TestCallSecondSignalForcesExit(t *testing.T) {
	e := newEnv(t)
	cfg, _ := stubbornServers(t, 6) // about 2 s each to close
	cmd, stderr, done := probeChildIn(t, nil, "mcp server connected", "call", "--config", cfg, "--plugins", e.plugins, "--data", e.data,
		"--log-level", "info", "mcp-s0-echo", "{}")
	code := signalUntilExit(t, cmd, done, stderr, syscall.SIGINT)
	if code != exitFail || !strings.Contains(stderr.String(), "second signal during shutdown") {
		t.Fatalf("call after repeated SIGINTs: exit %d, want %d after a second signal:\n%s", code, exitFail, stderr.String())
	}
}
