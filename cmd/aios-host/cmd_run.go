package main

import (
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

func runRun(c *cli, args []string) int {
	fs := c.flags("run", "run [global flags]", `
Load the built-in providers and every provider in the plugin folders, then
serve until SIGINT (Ctrl-C) or SIGTERM. On shutdown every provider is closed
and the audit log is flushed and fsynced. A plugin that fails to load is
logged and skipped.`)
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.usageError(fs, "run takes no arguments, got %q", pos)
	}
	log, err := c.logger(slog.LevelInfo)
	if err != nil {
		return c.usageError(fs, "%v", err)
	}
	ctx, stop := signal.NotifyContext(c.ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	h, err := c.newHost(ctx, log, hostOptions{audit: true})
	if err != nil {
		return c.fail(err)
	}
	cfg := h.Config()
	log.Info("aios-host serving",
		"tools", len(h.Registry().Tools()),
		"providers", len(h.Registry().Providers()),
		"plugins", cfg.Plugins,
		"data", cfg.Data,
		"audit", auditPathOf(cfg.Audit.Disabled, cfg.AuditPath()))
	// Servers (JSON-RPC over the unix socket, HTTP) and the plugin watcher
	// start here once they exist.
	<-ctx.Done()
	log.Info("shutting down")
	if err := closeHost(h, c.stderr); err != nil {
		return exitFail
	}
	return exitOK
}

func auditPathOf(disabled bool, path string) string {
	if disabled {
		return "disabled"
	}
	return path
}
