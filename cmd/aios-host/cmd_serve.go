package main

// Serving and client mode (engineer D): `run` starts discovery (plugin
// folders, Adapter Cards, .desktop entries, remote adapters, hot reload)
// and the JSON-RPC servers; `list` and `call` talk to a running host over
// its unix socket when one answers there.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/mcpserver"
	"github.com/aios-host/aios-host/server"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

// serving is what `run` started beside the host.
type serving struct {
	d *discovery.Discovery
	s *server.Server
	m *mcpserver.Server // /mcp (cmd_mcp.go)
}

func (sv *serving) close() {
	if sv.s != nil {
		_ = sv.s.Close()
	}
	if sv.m != nil {
		_ = sv.m.Close()
	}
	if sv.d != nil {
		_ = sv.d.Close()
	}
}

// startServing scans and watches the plugin folders, fetches remote
// adapters, and listens on socket (and httpAddr when not empty). It prints
// what it loaded, with progress when there are many units to load.
func (c *cli) startServing(ctx context.Context, h *host.Host, log *slog.Logger, socket, httpAddr string) (*serving, error) {
	metrics := server.NewMetrics()
	start := time.Now()
	progress := func(done, total int, path string, err error) {
		if total < 5 {
			return
		}
		status := "ok"
		if err != nil {
			status = "FAILED"
		}
		fmt.Fprintf(c.stderr, "loading [%d/%d] %s %s\n", done, total, path, status)
	}
	d, err := discovery.New(discovery.Options{Host: h, Config: h.Config(), Logger: log, Progress: progress, OnReload: metrics.Reload})
	if err != nil {
		return nil, err
	}
	if err := d.Start(ctx); err != nil {
		return nil, err
	}
	sv := &serving{d: d}
	c.printLoaded(h, d, time.Since(start))
	// MCP over streamable HTTP at /mcp (engineer M, cmd_mcp.go).
	if sv.m, err = startMCPHTTP(h, log); err != nil {
		sv.close()
		return nil, err
	}
	s, err := server.New(server.Options{Host: h, Discovery: d, Config: h.Config(), Logger: log, Metrics: metrics, Mount: sv.m.Mount, OnRefresh: c.onRefresh})
	if err != nil {
		sv.close()
		return nil, err
	}
	sv.s = s
	if err := s.ListenUnix(socket); err != nil {
		sv.close()
		return nil, err
	}
	fmt.Fprintf(c.stderr, "JSON-RPC on unix socket %s\n", s.Socket())
	if httpAddr != "" {
		addr, err := s.ListenHTTP(httpAddr)
		if err != nil {
			sv.close()
			return nil, err
		}
		sv.m.SetResource(s.PublicURL() + mcpserver.Path)
		fmt.Fprintf(c.stderr, "MCP (streamable HTTP, OAuth bearer tokens) on %s%s\n", s.PublicURL(), mcpserver.Path)
		fmt.Fprintf(c.stderr, "HTTP on http://%s (POST /rpc, GET /events, /.well-known/aios-adapter.json, /health, /metrics)\n", addr)
	}
	return sv, nil
}

// printLoaded lists the providers now registered and the files that failed.
func (c *cli) printLoaded(h *host.Host, d *discovery.Discovery, took time.Duration) {
	provs := h.Registry().Providers()
	sort.Slice(provs, func(i, j int) bool { return provs[i].Info.ID < provs[j].Info.ID })
	fmt.Fprintf(c.stderr, "loaded %d providers, %d tools in %s:\n", len(provs), len(h.Registry().Tools()), took.Round(time.Millisecond))
	for _, p := range provs {
		n := len(h.Registry().ProviderTools(p.Info.ID))
		fmt.Fprintf(c.stderr, "  %-40s %-9s %3d tools  %-9s %s\n", p.Info.ID, p.Info.Runtime, n, p.Trust, p.Source)
	}
	errs := d.Errors()
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(c.stderr, "  not loaded: %s: %s\n", k, errs[k])
	}
	fmt.Fprintf(c.stderr, "watching: %s\n", strings.Join(d.Roots(), ", "))
}

// socketPath is --socket, else the config's server.socket, else the default.
func socketPath(cfg *config.Config, flag string) string {
	if flag != "" {
		return flag
	}
	if sc, err := server.LoadConfig(cfg); err == nil && sc.Socket != "" {
		return sc.Socket
	}
	return server.DefaultSocket(cfg)
}

// dialHost connects to a host serving on the socket. It returns nil when
// none answers (the command then runs in-process) unless the socket was
// given explicitly, which makes a failure an error.
func (c *cli) dialHost(flag string) (*jsonrpc.Client, error) {
	cfg, err := c.config()
	if err != nil {
		return nil, err
	}
	path := socketPath(cfg, flag)
	ctx, cancel := context.WithTimeout(c.ctx, 500*time.Millisecond)
	defer cancel()
	cl, err := jsonrpc.DialUnix(ctx, path)
	if err != nil {
		var ne *net.OpError
		if flag != "" || !errors.As(err, &ne) {
			return nil, fmt.Errorf("no host answers on %s: %w", path, err)
		}
		return nil, nil
	}
	return cl, nil
}

// listViaSocket is `list` against a running host.
func (c *cli) listViaSocket(cl *jsonrpc.Client, asJSON bool) int {
	defer cl.Close()
	var res struct {
		Tools []server.ToolInfo `json:"tools"`
	}
	if err := cl.Call(c.ctx, "tools/list", map[string]any{"all_versions": true}, &res); err != nil {
		return c.fail(err)
	}
	tools := make([]toolInfo, 0, len(res.Tools))
	for _, t := range res.Tools {
		tools = append(tools, toolInfo{Name: t.Name, Version: t.Version, Runtime: t.Runtime, Provider: t.Provider,
			Description: t.Description, Trust: t.Trust, CapabilityRequired: nonNil(t.CapabilityRequired),
			Tags: nonNil(t.Tags), Deprecated: t.Deprecated})
	}
	sortTools(tools)
	if asJSON {
		if err := writeJSON(c.stdout, tools, true); err != nil {
			return c.fail(err)
		}
		return exitOK
	}
	if len(tools) == 0 {
		fmt.Fprintln(c.stdout, "no tools registered in the running host")
		return exitOK
	}
	return c.printToolTable(tools)
}

// callViaSocket is `call` against a running host. The caller is the agent
// the host maps this process's uid to (server.uids; default_agent for the
// host's own uid).
func (c *cli) callViaSocket(ctx context.Context, cl *jsonrpc.Client, tool, version string, params any, timeout time.Duration, asJSON bool) int {
	defer cl.Close()
	p := jsonrpc.ToolsCallParams{Name: tool, Arguments: params, Version: version, TimeoutMS: timeout.Milliseconds()}
	var res jsonrpc.ToolsCallResult
	err := cl.Call(ctx, "tools/call", p, &res)
	if err != nil {
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			return c.fail(err)
		}
		return c.printToolError(je.ToolError(), asJSON)
	}
	value, err := abi.Normalize(res.Value)
	if err != nil {
		return c.fail(err)
	}
	return c.printResult(value, asJSON)
}
