package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/aios-host/aios-host/internal/wire"
	"github.com/aios-host/aios-host/server"
)

func runRun(c *cli, args []string) int {
	fs := c.flags("run", "run [--socket PATH] [--http ADDR] [--engine wazero|wasmtime] [--wire msgpack|json] [global flags]", `
Load the built-in providers and every provider in the plugin folders, then
serve until SIGINT (Ctrl-C), SIGTERM or SIGHUP (the terminal closed; not
under nohup). On shutdown every provider is closed and the audit log is
flushed and fsynced. A plugin that fails to load is logged and skipped.`)
	socket := nonEmptyString(fs, "socket", "unix socket `path` for JSON-RPC (default: server.socket, else <data>/aios-host.sock)")
	httpAddr := fs.String("http", "", "serve HTTP on `addr`, e.g. 127.0.0.1:7700 (default: server.http; off when empty)")
	fs.StringVar(&c.engine, "engine", "", "WebAssembly `engine`: wazero or wasmtime (default: runtimes.wasm.engine, else wazero; wasmtime needs a -tags wasmtime build)")
	fs.StringVar(&c.wire, "wire", "", "wire `format` of JS and Python worker processes: msgpack or json (for debugging; with --log-level debug every frame is logged); default: runtimes.js.wire / runtimes.python.wire, else msgpack")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.usageError(fs, "run takes no arguments, got %q", pos)
	}
	if c.wire != "" && c.wire != wire.MsgPack && c.wire != wire.JSON {
		return c.usageError(fs, "--wire %q: want msgpack or json", c.wire)
	}
	if *httpAddr != "" {
		// An address that is no host:port (--http 7700, :99999) is a bad
		// value, as --wire's (exit 2), not a failure to listen (exit 1:
		// a port in use).
		if err := checkListenAddr(*httpAddr); err != nil {
			return c.usageError(fs, "--http %s: %v", *httpAddr, err)
		}
	}
	if c.engine != "" {
		if err := checkEngine(c.engine); err != nil {
			return c.usageError(fs, "%v", err) // a bad value, as --wire's (exit 2)
		}
	}
	log, err := c.logger(slog.LevelInfo)
	if err != nil {
		return c.usageError(fs, "%v", err)
	}
	gc := applyServeGC()
	keepServingOnBrokenPipe()
	ctx, stop := signal.NotifyContext(c.ctx, stopSignals()...)
	defer stop()
	// The server section is checked before anything loads: a mistake
	// in it (server.sokcet) was found only by the server, after every
	// plugin had loaded, and the socket checked before loading was the
	// default one, not server.socket.
	started := configAtStart(c.configFile) // what edits while it runs are compared with
	cfg, err := c.config()
	if err != nil {
		return c.fail(err)
	}
	sc, err := server.LoadConfig(cfg)
	if err != nil {
		return c.fail(err)
	}
	// Its tokens, uids and signing key too: an empty token_env was
	// found by the server after every plugin had loaded.
	if err := server.CheckAuth(cfg); err != nil {
		return c.fail(err)
	}
	switch {
	case *socket != "":
		c.socketFrom = "flag"
	case sc.Socket != "":
		c.socketFrom = "config"
	}
	switch {
	case *httpAddr != "":
		c.httpFrom = "flag"
	case sc.HTTP != "":
		*httpAddr, c.httpFrom = sc.HTTP, "config"
	}
	h, err := c.newHost(ctx, log, hostOptions{audit: true, discovery: true})
	if err != nil {
		return c.fail(err)
	}
	cfg = h.Config()
	sv, err := c.startServing(ctx, h, log, socketPath(cfg, *socket), *httpAddr)
	if err != nil {
		_ = closeHost(h, c.stderr)
		return c.fail(err)
	}
	if ctx.Err() != nil {
		// SIGINT/SIGTERM while the plugins loaded: stop there, as a
		// signal while serving would, rather than list the plugins cut
		// short as failed and start serving after the signal.
		stop()
		log.Info("interrupted while loading the plugins; stopping")
		sv.close()
		if err := closeHost(h, c.stderr); err != nil {
			return exitFail
		}
		return exitOK
	}
	warnUnmatchedSettings(cfg, h, log)
	log.Info("aios-host serving",
		"tools", len(h.Registry().Tools()),
		"providers", len(h.Registry().Providers()),
		"plugins", cfg.Plugins,
		"data", cfg.Data,
		"audit", auditPathOf(cfg.Audit.Disabled, cfg.AuditPath()),
		"gc_percent", gc.Percent, "gc_memory_limit", gc.MemLimit)
	if c.configFile != "" {
		// Read at start only: an edit while the host runs is said to
		// take a restart, or, when it would not load, why.
		go watchConfigFile(ctx, c.configFile, runFlags{data: c.data, plugins: len(c.plugins) > 0, socket: *socket != "",
			http: c.httpFrom == "flag", engine: c.engine, wire: c.wire}, started, log)
	}
	<-ctx.Done()
	first := time.Now()
	// A second SIGINT or SIGTERM during the shutdown ends the process at
	// once (what an operator pressing Ctrl-C again expects), unless it
	// came within sameSignalWindow of the first. SIGHUP does not: a
	// closed terminal may send more than one (the kernel's to the
	// foreground group, the shell's to its jobs). The signals are caught
	// before NotifyContext lets them go, so that none meanwhile takes its
	// default action (ending the process).
	log.Info("shutting down (a second SIGINT or SIGTERM exits without waiting)")
	return shutdown(stop, first, log, func() int {
		sv.close()
		if err := closeHost(h, c.stderr); err != nil {
			return exitFail
		}
		return exitOK
	})
}

// shutdown catches the stop signals that stop's signal.NotifyContext
// took until now (so that none meanwhile takes its default action, ending
// the process), and runs closeAll as awaitShutdown does from first: the
// shutdown of run, mcp and call.
func shutdown(stop context.CancelFunc, first time.Time, log *slog.Logger, closeAll func() int) int {
	again := make(chan os.Signal, 4)
	signal.Notify(again, stopSignals()...)
	defer signal.Stop(again)
	stop()
	return awaitShutdown(again, first, log, closeAll)
}

// signalledAt is when a signal started the shutdown of a command whose
// signal context is ctx and own context parent: now when ctx ended and
// parent did not (logged), else zero (the call ended, the MCP client
// closed stdin: awaitShutdown takes the first signal for the one that
// starts it).
func signalledAt(ctx, parent context.Context, log *slog.Logger) time.Time {
	if ctx.Err() == nil || parent.Err() != nil {
		return time.Time{}
	}
	log.Info("shutting down (a second SIGINT or SIGTERM exits without waiting)")
	return time.Now()
}

// sameSignalWindow is how long after the signal that started the shutdown
// another one is taken for the same: `timeout`, and supervisors that
// signal the process and then its process group, send SIGTERM twice at
// once, and the second cut every such shutdown short.
var sameSignalWindow = time.Second

// awaitShutdown runs closeAll and returns its exit code, or exitFail as
// soon as a SIGINT or SIGTERM arrives on again before it has finished
// (and more than sameSignalWindow after first, the signal that started
// the shutdown): the calls still in flight are abandoned, and audit
// records not yet written are lost (as in a crash: docs/audit.md, "What a
// crash can lose"), and the child processes are killed (onForcedExit). A
// SIGHUP is ignored. A zero first is a shutdown no
// signal started (mcp whose client closed stdin): the first SIGINT or
// SIGTERM is taken as the one that starts it (an MCP client sends one
// when the server has not gone a while after stdin closed).
func awaitShutdown(again <-chan os.Signal, first time.Time, log *slog.Logger, closeAll func() int) int {
	done := make(chan int, 1)
	go func() { done <- closeAll() }()
	for {
		select {
		case code := <-done:
			return code
		case s := <-again:
			if first.IsZero() && s != syscall.SIGHUP {
				first = time.Now()
				log.Info("shutting down (a second SIGINT or SIGTERM exits without waiting)", "signal", s.String())
				continue
			}
			if s == syscall.SIGHUP || time.Since(first) < sameSignalWindow {
				log.Info("signal during shutdown ignored (a SIGHUP, or one that came with the first)", "signal", s.String())
				continue
			}
			log.Error("second signal during shutdown: exiting without waiting for it to finish", "signal", s.String())
			onForcedExit() // exits (but in tests)
			return exitFail
		}
	}
}

// onForcedExit ends the child processes when awaitShutdown gives up on
// the shutdown (forcedExit; a variable for the tests that call
// awaitShutdown in the test process).
var onForcedExit = forcedExit

// forcedExit ends the process without its shutdown, exit 1: it ignores
// the stop signals from here on (one more, from an operator still
// pressing Ctrl-C or a supervisor, killed the exiting process by the
// signal once its handler was gone), kills the children (killChildren)
// until none is left running (the MCP bridge restarts a server it sees
// die at once: two passes missed some), and exits before anything starts
// another.
func forcedExit() {
	signal.Ignore(os.Interrupt, syscall.SIGTERM)
	for range 200 {
		if killChildren() == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond) // for their deaths to be seen, and restarts made
	}
	os.Exit(exitFail)
}

// stopSignals are the signals that stop the commands that serve or call
// (run, mcp, call) with a clean shutdown: SIGINT, SIGTERM, and SIGHUP (the
// terminal of a foreground host closed, an ssh session dropped), which
// otherwise ended the process at once, its audit records not yet written
// lost and its socket file left behind. A SIGHUP ignored when the process
// started (nohup) stays ignored: catching it would undo nohup.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

func auditPathOf(disabled bool, path string) string {
	if disabled {
		return "disabled"
	}
	return path
}

// keepServingOnBrokenPipe makes a write to a broken pipe fail with EPIPE
// instead of killing the process with SIGPIPE (Go's default for fds 1 and
// 2), for the commands that serve (run, mcp): a host whose log reader went
// away (journald restarted, `run 2>&1 | grep` ended) loses log lines, not
// its calls in flight and the audit records not yet written. `aios-host
// mcp` whose client closed stdout sees the write fail and shuts down
// cleanly. Notify, not Ignore: an ignored signal stays ignored in the
// worker processes the host starts; a caught one is reset at exec.
func keepServingOnBrokenPipe() {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
}

// checkListenAddr checks that addr is written as a TCP listen address:
// host:port (the host may be empty, the port a number up to 65535 or a
// service name).
func checkListenAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		if ae, ok := err.(*net.AddrError); ok {
			err = errors.New(ae.Err) // without "address X:", said already
		}
		return fmt.Errorf("%v: want host:port, e.g. 127.0.0.1:7700 or :7700", err)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("port %q: want a number from 0 to 65535, e.g. 127.0.0.1:7700", port)
	}
	return nil
}
