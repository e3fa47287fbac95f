package main

// MCP both ways (engineer M): `aios-host mcp` serves the exportable tools
// over stdio; `run --http` mounts /mcp (see cmd_serve.go); every host
// imports the MCP servers of `mcp.servers` through the bridge.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/mcpserver"
	mcpbridge "github.com/aios-host/aios-host/runtimes/mcp"
)

func runMCP(c *cli, args []string) (rc int) {
	fs := c.flags("mcp", "mcp [global flags]", `
Serve the exportable tools (mcp_exportable, or matching mcp.export) to one
MCP client over stdio: JSON-RPC on standard input and output, logs on
standard error. Calls run through the whole pipeline (capability checks,
schema validation, rate limits, audit) as the agent mcp.agent, by default
"mcp", which may only call tools (CallTool(*)) unless the configuration
defines agents.mcp with more grants. MCP servers listed under mcp.servers
are imported as mcp-{server}-{tool} tools. The plugin folders are watched as
by run: the tool list follows hot reloads (notifications/tools/list_changed).
Several MCP clients may each start their own "aios-host mcp" on one data
directory: when another aios-host holds the audit log, the session writes a
hash-chained log of its own under <data>/audit-sessions/ (named on stderr).

Claude Desktop (claude_desktop_config.json):
  {"mcpServers": {"aios-host": {"command": "/path/to/aios-host", "args": ["mcp"]}}}`)
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.usageError(fs, "mcp takes no arguments, got %q", pos)
	}
	log, err := c.logger(slog.LevelWarn)
	if err != nil {
		return c.usageError(fs, "%v", err)
	}
	gc := applyServeGC()
	keepServingOnBrokenPipe()
	ctx, stop := signal.NotifyContext(c.ctx, stopSignals()...)
	defer stop()
	h, err := c.newHost(ctx, log, hostOptions{audit: true, discovery: true})
	if errors.Is(err, audit.ErrInUse) {
		// Another aios-host (a running `run`, or the `mcp` of another
		// client) holds the log: this session keeps its own.
		var cfg *config.Config
		if cfg, err = c.config(); err == nil {
			own := sessionAuditPath(cfg.AuditPath(), "mcp", time.Now(), os.Getpid())
			log.Warn("the audit log is in use by another aios-host; this MCP session writes its own hash-chained log (check it with aios-host audit verify FILE)",
				"log", cfg.AuditPath(), "session_log", own)
			h, err = c.newHost(ctx, log, hostOptions{audit: true, discovery: true, auditPath: own})
		}
	}
	if err != nil {
		return c.fail(err)
	}
	// A shutdown that drops audit records or cannot close the log fails
	// the command, as it fails run (it said exit 0 whatever closeHost
	// reported).
	shut := false // the shutdown at the end closes s, d and h itself
	defer func() {
		if shut {
			return
		}
		if err := closeHost(h, c.stderr); err != nil && rc == exitOK {
			rc = exitFail
		}
	}()
	// Load and watch the plugin folders as run does, so that the tool list
	// follows hot reloads.
	d, err := discovery.New(discovery.Options{Host: h, Config: h.Config(), Logger: log})
	if err != nil {
		return c.fail(err)
	}
	defer func() {
		if !shut {
			d.Close()
		}
	}()
	if err := d.Start(ctx); err != nil {
		return c.fail(err)
	}
	warnUnmatchedSettings(h.Config(), h, log)
	s, err := mcpserver.New(mcpserver.Options{Host: h, Logger: log, Version: buildVersion()})
	if err != nil {
		return c.fail(err)
	}
	defer func() {
		if !shut {
			s.Close()
		}
	}()
	hidden := s.Hidden(s.StdioAgent())
	log.Info("serving MCP over stdio", "tools", len(s.Tools())-len(hidden), "gc_percent", gc.Percent, "gc_memory_limit", gc.MemLimit)
	if stdinIsTerminal(c.stdin) {
		// Typed in a terminal, it printed nothing (at the default
		// level) and waited: a newcomer took it for hung.
		fmt.Fprintln(c.stderr, "aios-host mcp: serving MCP over stdio, waiting for an MCP client's JSON-RPC on standard input: an MCP client (Claude Desktop, VS Code; README \"MCP (both ways)\") starts it; Ctrl-D or Ctrl-C ends it")
	}
	if len(hidden) > 0 {
		// A newcomer looking for a tool in the assistant's list learns
		// why it is not there: at Warn, mcp's default level (an MCP
		// client starts it without --log-level).
		log.Warn("exported tools the client's agent may not call are not listed", "agent", s.StdioAgent(), "tools", hidden,
			"hint", "grant what they need in agents."+s.StdioAgent()+" (or set mcp.tools_list: all to list them anyway)")
	}
	runErr := s.Run(ctx, s.Stdio(c.stdin, c.stdout))
	// The shutdown, as run's (awaitShutdown): a second SIGINT or SIGTERM
	// exits without waiting for it to finish. The signals were taken by
	// ctx's until it is stopped, and ignored there: an operator's second
	// Ctrl-C did nothing while a server that would not go was waited for.
	first := signalledAt(ctx, c.ctx, log)
	code = exitOK
	if runErr != nil && ctx.Err() == nil && !errors.Is(runErr, io.EOF) {
		code = c.fail(runErr)
	}
	shut = true
	return shutdown(stop, first, log, func() int {
		s.Close()
		d.Close()
		if err := closeHost(h, c.stderr); err != nil && code == exitOK {
			return exitFail
		}
		return code
	})
}

// sessionAuditPath is the audit log of a command (kind: mcp, call) that
// found the configured log in use:
// <dir of log>/audit-sessions/<kind>-<UTC time>-<pid>.jsonl.
func sessionAuditPath(log, kind string, now time.Time, pid int) string {
	return filepath.Join(filepath.Dir(log), "audit-sessions", fmt.Sprintf("%s-%s-%d.jsonl", kind, now.UTC().Format("20060102T150405Z"), pid))
}

// startMCPBridge imports the MCP servers of mcp.servers into h: each server
// is one provider, trust Untrusted, republished when its tools change. It
// waits for each server's first listing (bounded by its connect_timeout);
// servers that fail are logged and retried in the background. The host
// owns the providers: closing it disconnects the servers.
// servers is mcpbridge.LoadConfig's reading of cfg, taken by newHost
// before it loads anything (a mistake there costs no plugin load).
func (c *cli) startMCPBridge(ctx context.Context, h *host.Host, servers map[string]mcpbridge.ServerConfig, log *slog.Logger) error {
	if len(servers) == 0 {
		return nil
	}
	b, err := mcpbridge.New(mcpbridge.Options{
		Servers:  servers,
		Logger:   log,
		MaxTools: h.Config().Limits.MaxToolsPerProvider,
		Publish: func(ctx context.Context, p abi.Provider, source string) error {
			// Partial: a tool whose mcp-{server}-{tool} name another
			// provider holds costs that tool, not the server's others
			// (no other provider may register a name of the server's
			// namespace, newHost's ToolNamespaces; the bridge itself
			// leaves out a tool in another server's namespace,
			// docs/mcp.md).
			return h.ReplaceProvider(ctx, p, host.ProviderMeta{Source: "mcp:" + source, Trust: abi.Untrusted, Partial: true})
		},
	})
	if err != nil {
		return err
	}
	c.refreshMCP = b.Refresh
	h.SetNotFoundHint(b.NotFoundHint)
	if err := b.Start(ctx); err != nil {
		log.Warn("mcp servers not (yet) imported", "err", err)
	}
	return nil
}

// startMCPHTTP builds the MCP server that `run` mounts at /mcp.
func startMCPHTTP(h *host.Host, log *slog.Logger) (*mcpserver.Server, error) {
	return mcpserver.New(mcpserver.Options{Host: h, Logger: log, Version: buildVersion()})
}

// onRefresh is the server's aios/registry.refresh hook: the MCP bridge
// re-lists its servers and retries the disconnected ones at once.
func (c *cli) onRefresh(ctx context.Context, _ string) error {
	if c.refreshMCP == nil {
		return nil
	}
	return c.refreshMCP(ctx)
}

// mcpSource is the source the host records for server sc's bridge
// provider (startMCPBridge's Publish), which newHost binds its id to.
func mcpSource(sc mcpbridge.ServerConfig) string { return "mcp:" + sc.Source() }

// stdinIsTerminal reports whether r, the command's standard input, is a
// terminal: a character device other than the null device (which an MCP
// client never gives, and which ends at once). A variable for the tests.
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return false
	}
	null, err := os.Stat(os.DevNull)
	return err != nil || !os.SameFile(st, null)
}
