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

// close closes /mcp before the HTTP server: mcpserver.Close cancels the
// calls of every MCP session and waits for their answers (isError, "the
// host is shutting down") while their HTTP requests can still carry them;
// closing the HTTP server first ended those requests, and an MCP client
// got no answer at all ("request terminated without response"),
// TestChaosEverythingAtOnce.
func (sv *serving) close() {
	if sv.m != nil {
		_ = sv.m.Close()
	}
	if sv.s != nil {
		_ = sv.s.Close()
	}
	if sv.d != nil {
		_ = sv.d.Close()
	}
}

// socketUnsupported is server.UnixSocketUnsupported (a variable for the
// tests of a platform without the socket).
var socketUnsupported = server.UnixSocketUnsupported

// startServing scans and watches the plugin folders, fetches remote
// adapters, and listens on socket (and httpAddr when not empty). It prints
// what it loaded, with progress when there are many units to load.
func (c *cli) startServing(ctx context.Context, h *host.Host, log *slog.Logger, socket, httpAddr string) (*serving, error) {
	// A socket another host listens on (or a path that cannot be one)
	// fails now, not after every plugin has loaded. Where there is no
	// unix socket (Windows) the host serves HTTP only, and needs --http.
	noSocket := socketUnsupported()
	if noSocket != nil && httpAddr == "" {
		return nil, fmt.Errorf("%w; nothing to serve without --http", noSocket)
	}
	if noSocket == nil {
		if err := server.CheckSocket(socket); err != nil {
			// Said with where the path came from, as --http's and
			// server.http's are: the config's file and line find it.
			switch c.socketFrom {
			case "config":
				return nil, fmt.Errorf("server.socket: %w", err)
			case "flag":
				return nil, fmt.Errorf("--socket: %w", err)
			}
			return nil, err
		}
	}
	// The HTTP address is bound now too: one that cannot be listened on
	// (no port, a port in use) fails before the plugins load, and
	// connections made while they load wait in the backlog.
	var httpLn net.Listener
	if httpAddr != "" {
		if c.httpFrom == "config" {
			// Said as --http's is (server.http: 7700 failed "listen tcp:
			// address 7700: missing port in address", with no hint).
			if err := checkListenAddr(httpAddr); err != nil {
				return nil, fmt.Errorf("server.http: %s: %w", httpAddr, err)
			}
		}
		ln, err := net.Listen("tcp", httpAddr)
		if err != nil {
			switch c.httpFrom {
			case "config": // located by fail: config.yaml:N: server.http: …
				return nil, fmt.Errorf("server.http: %s: %w", httpAddr, err)
			case "flag":
				return nil, fmt.Errorf("--http %s: %w", httpAddr, err)
			}
			return nil, fmt.Errorf("http %s: %w", httpAddr, err)
		}
		httpLn = ln
		defer func() {
			if httpLn != nil { // not handed to the server
				httpLn.Close()
			}
		}()
	}
	metrics := server.NewMetrics()
	start := time.Now()
	progress := func(done, total int, path string, err error) {
		if total < 5 {
			return
		}
		status := "ok"
		switch {
		case err != nil && ctx.Err() != nil:
			status = "interrupted" // not a failure of the unit
		case err != nil:
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
	if ctx.Err() != nil {
		return sv, nil // interrupted while loading: run stops (no listing, no socket)
	}
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
	if noSocket == nil {
		if err := s.ListenUnix(socket); err != nil {
			sv.close()
			return nil, err
		}
		fmt.Fprintf(c.stderr, "JSON-RPC on unix socket %s\n", s.Socket())
	} else {
		fmt.Fprintf(c.stderr, "no JSON-RPC unix socket: %v\n", noSocket)
	}
	if httpLn != nil {
		addr := httpLn.Addr()
		s.ServeHTTPListener(httpLn)
		httpLn = nil
		sv.m.SetResource(s.PublicURL() + mcpserver.Path)
		if a := sv.m.AnonymousAgent(); a != "" {
			fmt.Fprintf(c.stderr, "MCP (streamable HTTP; requests without a token served as agent %q: mcp.http.anonymous_agent, for development only) on %s%s\n", a, s.PublicURL(), mcpserver.Path)
			if ta, ok := addr.(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
				log.Warn("mcp.http.anonymous_agent serves /mcp without a token on an address that is not a loopback address: anyone who reaches it calls tools as that agent",
					"agent", a, "addr", addr.String())
			}
		} else if sv.m.VerifiesTokens() {
			fmt.Fprintf(c.stderr, "MCP (streamable HTTP, OAuth bearer tokens) on %s%s\n", s.PublicURL(), mcpserver.Path)
		} else {
			// Without an issuer no token verifies: "OAuth bearer tokens"
			// sent a newcomer's MCP client to a /mcp that refuses all.
			fmt.Fprintf(c.stderr, "MCP (streamable HTTP) on %s%s refuses every request: no mcp.http.issuer to verify OAuth bearer tokens with, nor mcp.http.anonymous_agent (README \"MCP (both ways)\")\n", s.PublicURL(), mcpserver.Path)
		}
		fmt.Fprintf(c.stderr, "HTTP on http://%s (POST /rpc, GET /events, /.well-known/aios-adapter.json, /health, /metrics)\n", addr)
	}
	return sv, nil
}

// printLoaded lists the providers now registered and the files that failed.
// A file's path and why it did not load (what its code threw) are the
// plugin's: they are printed through termCell and termText.
func (c *cli) printLoaded(h *host.Host, d *discovery.Discovery, took time.Duration) {
	provs := h.Registry().Providers()
	sort.Slice(provs, func(i, j int) bool { return provs[i].Info.ID < provs[j].Info.ID })
	fmt.Fprintf(c.stderr, "loaded %d providers, %d tools in %s:\n", len(provs), len(h.Registry().Tools()), took.Round(time.Millisecond))
	for _, p := range provs {
		n := len(h.Registry().ProviderTools(p.Info.ID))
		fmt.Fprintf(c.stderr, "  %-40s %-9s %3d tools  %-9s %s\n", p.Info.ID, p.Info.Runtime, n, p.Trust, termCell(p.Source))
	}
	errs := d.Errors()
	keys := make([]string, 0, len(errs))
	for k := range errs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		// "load X (js runtime): …" names the file already: it read
		// "not loaded: X: load X (js runtime): …"
		// (TestRunSummaryNamesFailedFileOnce).
		if rest, ok := strings.CutPrefix(errs[k], "load "+k+" ("); ok {
			fmt.Fprintf(c.stderr, "  not loaded: %s (%s\n", termCell(k), termText(rest))
			continue
		}
		fmt.Fprintf(c.stderr, "  not loaded: %s: %s\n", termCell(k), termText(errs[k]))
	}
	roots := d.Roots()
	for i, r := range roots {
		roots[i] = termCell(r)
	}
	fmt.Fprintf(c.stderr, "watching: %s\n", strings.Join(roots, ", "))
}

// socketPath is --socket, else the config's server.socket, else the default.
func socketPath(cfg *config.Config, flag string) string {
	if flag != "" {
		return config.ExpandHome(flag) // --socket=~/h.sock: the shell leaves that "~" alone
	}
	if sc, err := server.LoadConfig(cfg); err == nil && sc.Socket != "" {
		return sc.Socket
	}
	return server.DefaultSocket(cfg)
}

// How long `list` and `call` wait for a running host's answer before they
// give up: a fixed time for a listing; for a call, its deadline (--timeout,
// else limits.max_deadline) plus socketMargin. Variables for the tests.
var (
	listWait     = 5 * time.Second
	socketMargin = 5 * time.Second
)

// hostConn is a connection to a running host and the socket it came from.
type hostConn struct {
	*jsonrpc.Client
	path string
}

// dialHost connects to a host serving on the socket. It returns nil when
// none answers (the command then runs in-process) unless the socket was
// given explicitly, which makes a failure an error.
// errNoHost is dialHost's error when no host answers on the socket.
var errNoHost = errors.New("no host answers")

func (c *cli) dialHost(cfg *config.Config, flag string) (*hostConn, error) {
	if flag == "" {
		// The socket is server.socket's: a section that does not load
		// (server.sokcet) was dropped without a word, the default socket
		// looked at instead, and the plugins loaded in this process
		// beside the host running on the socket the section meant.
		if _, err := server.LoadConfig(cfg); err != nil {
			return nil, fmt.Errorf("%w (the running host's socket is found from the server section: fix it, or give --socket)", err)
		}
	}
	path := socketPath(cfg, flag)
	ctx, cancel := context.WithTimeout(c.ctx, 500*time.Millisecond)
	defer cancel()
	cl, err := jsonrpc.DialUnix(ctx, path)
	if err != nil {
		var ne *net.OpError
		if flag != "" || !errors.As(err, &ne) {
			return nil, fmt.Errorf("%w on %s: %w", errNoHost, path, err)
		}
		return nil, nil
	}
	return &hostConn{Client: cl, path: path}, nil
}

// call calls method on the running host and waits at most wait for the
// answer.
func (hc *hostConn) call(ctx context.Context, wait time.Duration, method string, params, result any) error {
	cctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	err := hc.Call(cctx, method, params, result)
	var je *jsonrpc.Error
	switch {
	case err == nil || errors.As(err, &je):
		return err
	case ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("the host running on %s did not answer %s within %s", hc.path, method, wait)
	}
	return fmt.Errorf("the host running on %s: %s: %w", hc.path, method, err)
}

// noticeRunningHost says on stderr that --plugins and --config, when given,
// do not change the tools of the host that answered on path; bypass says
// how to load them in this process instead.
func (c *cli) noticeRunningHost(path, bypass string) {
	var given []string
	if len(c.plugins) > 0 {
		given = append(given, "--plugins")
	}
	if c.configFile != "" {
		given = append(given, "--config")
	}
	if len(given) == 0 {
		return
	}
	verb := "does"
	if len(given) > 1 {
		verb = "do"
	}
	fmt.Fprintf(c.stderr, "aios-host: using the tools of the host running on %s: %s %s not change them; %s\n", path, strings.Join(given, " and "), verb, bypass)
}

// listViaSocket is `list` against a running host.
func (c *cli) listViaSocket(hc *hostConn, asJSON bool) int {
	defer hc.Close()
	var tools []toolInfo
	cursor, seen := "", map[string]bool{}
	for {
		var res struct {
			Tools []struct {
				server.ToolInfo
				Source string `json:"source"`
			} `json:"tools"`
			NextCursor string `json:"nextCursor"`
		}
		params := map[string]any{"all_versions": true}
		if cursor != "" {
			params["cursor"] = cursor
		}
		if err := hc.call(c.ctx, listWait, "tools/list", params, &res); err != nil {
			return c.fail(err)
		}
		for _, t := range res.Tools {
			tools = append(tools, toolInfo{Name: t.Name, Version: t.Version, Runtime: t.Runtime, Provider: t.Provider,
				Description: t.Description, Trust: t.Trust, CapabilityRequired: nonNil(t.CapabilityRequired),
				Tags: nonNil(t.Tags), Deprecated: t.Deprecated, Deprecation: t.Deprecation, Source: t.Source, RegisteredAt: t.RegisteredAt, SemverViolation: t.SemverViolation})
		}
		if res.NextCursor == "" {
			break
		}
		if seen[res.NextCursor] {
			return c.fail(fmt.Errorf("tools/list of the host on the socket sent the cursor %q twice", res.NextCursor))
		}
		seen[res.NextCursor], cursor = true, res.NextCursor
	}
	sortTools(tools)
	if asJSON {
		if tools == nil {
			tools = []toolInfo{} // an array, as in-process (not null)
		}
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

// callViaSocket is `call` against a running host, waiting at most wait for
// its answer. The caller is the agent the host maps this process's uid to
// (server.uids; default_agent for the host's own uid).
func (c *cli) callViaSocket(ctx context.Context, log *slog.Logger, hc *hostConn, tool, version string, params any, timeout, wait time.Duration, asJSON bool) int {
	defer hc.Close()
	p := jsonrpc.ToolsCallParams{Name: tool, Arguments: params, Version: version, TimeoutMS: timeout.Milliseconds()}
	var res jsonrpc.ToolsCallResult
	err := hc.call(ctx, wait, "tools/call", p, &res)
	if err != nil {
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			if asJSON {
				// No answer (or a broken connection, or interrupted):
				// still the error object --json promises on stdout.
				code := abi.Unavailable
				if ctx.Err() != nil {
					code = abi.Cancelled
				}
				_ = writeJSON(c.stdout, map[string]any{"code": code, "message": err.Error()}, false)
			}
			return c.fail(err)
		}
		return c.printToolError(je.ToolError(), asJSON)
	}
	value, err := abi.Normalize(res.Value)
	if err != nil {
		return c.fail(err)
	}
	if d := res.Deprecation; d != nil {
		// What the host logs when an in-process call reaches a
		// deprecated version: the running host logs it in its own log.
		log.Warn("deprecated tool called", "tool", res.Tool, "version", res.Version,
			"since", d.Since, "replacement", d.Replacement, "message", d.Message)
	}
	return c.printResult(value, asJSON)
}
