package main

// MCP both ways (engineer M): `aios-host mcp` serves the exportable tools
// over stdio; `run --http` mounts /mcp (see cmd_serve.go); every host
// imports the MCP servers of `mcp.servers` through the bridge.

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/mcpserver"
	mcpbridge "github.com/aios-host/aios-host/runtimes/mcp"
)

func runMCP(c *cli, args []string) int {
	fs := c.flags("mcp", "mcp [global flags]", `
Serve the exportable tools (mcp_exportable, or matching mcp.export) to one
MCP client over stdio: JSON-RPC on standard input and output, logs on
standard error. Calls run through the whole pipeline (capability checks,
schema validation, rate limits, audit) as the agent mcp.agent, by default
"mcp", which may only call tools (CallTool(*)) unless the configuration
defines agents.mcp with more grants. MCP servers listed under mcp.servers
are imported as mcp-{server}-{tool} tools.

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
	ctx, stop := signal.NotifyContext(c.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	h, err := c.newHost(ctx, log, hostOptions{audit: true})
	if err != nil {
		return c.fail(err)
	}
	defer closeHost(h, c.stderr)
	s, err := mcpserver.New(mcpserver.Options{Host: h, Logger: log})
	if err != nil {
		return c.fail(err)
	}
	defer s.Close()
	log.Info("serving MCP over stdio", "tools", len(s.Tools()), "gc_percent", gc.Percent, "gc_memory_limit", gc.MemLimit)
	if err := s.Run(ctx, mcpserver.StdioTransport(c.stdin, c.stdout)); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		return c.fail(err)
	}
	return exitOK
}

// startMCPBridge imports the MCP servers of mcp.servers into h: each server
// is one provider, trust Untrusted, republished when its tools change. It
// waits for each server's first listing (bounded by its connect_timeout);
// servers that fail are logged and retried in the background. The host
// owns the providers: closing it disconnects the servers.
func (c *cli) startMCPBridge(ctx context.Context, h *host.Host, cfg *config.Config, log *slog.Logger) error {
	servers, err := mcpbridge.LoadConfig(cfg)
	if err != nil || len(servers) == 0 {
		return err
	}
	b, err := mcpbridge.New(mcpbridge.Options{
		Servers: servers,
		Logger:  log,
		Publish: func(ctx context.Context, p abi.Provider, source string) error {
			return h.ReplaceProvider(ctx, p, host.ProviderMeta{Source: "mcp:" + source, Trust: abi.Untrusted})
		},
	})
	if err != nil {
		return err
	}
	c.refreshMCP = b.Refresh
	if err := b.Start(ctx); err != nil {
		log.Warn("mcp servers not (yet) imported", "err", err)
	}
	return nil
}

// startMCPHTTP builds the MCP server that `run` mounts at /mcp.
func startMCPHTTP(h *host.Host, log *slog.Logger) (*mcpserver.Server, error) {
	return mcpserver.New(mcpserver.Options{Host: h, Logger: log})
}

// onRefresh is the server's aios/registry.refresh hook: the MCP bridge
// re-lists its servers and retries the disconnected ones at once.
func (c *cli) onRefresh(ctx context.Context, _ string) error {
	if c.refreshMCP == nil {
		return nil
	}
	return c.refreshMCP(ctx)
}
