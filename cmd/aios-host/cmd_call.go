package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"os"
	"os/signal"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/internal/wire"
)

func runCall(c *cli, args []string) int {
	fs := c.flags("call", "call TOOL ['JSON' | -] [--as AGENT] [--json] [--version C] [--timeout D] [--socket PATH] [global flags]", `
Call one tool through the whole pipeline (capability check, rate limits,
schema validation, deadline, audit) and print its result. The params are a
JSON object given as one argument, or read from standard input with "-"
(at most limits.max_params_bytes); they default to {}. Empty or null
params are refused (exit 2).

When a host is running on the socket (--socket, else the config's
server.socket, else the data directory's) and --as is not given, the call
goes through that host, with its tools: --plugins and --config do not
change them; a server section that does not load is an error. Otherwise it runs in this
process; when another aios-host holds the audit log, the call is recorded
in a log of its own, <data>/audit-sessions/call-<time>-<pid>.jsonl.

Without --json a string result is printed as text and anything else as
indented JSON; a tool error is printed as "CODE: message" on standard error.
With --json the result value is printed as JSON on standard output, or on
error an object {"code": ..., "message": ..., "data": ...}. Either way a tool
error exits with status 1.

Example:
  id=$(aios-host space put source main.go)
  aios-host call analyze-complexity "{\"object_id\": \"$id\", \"language\": \"go\"}"`)
	// An empty --as (a script's --as "$AGENT" with AGENT unset) is
	// refused: taken as no --as, it called as the default agent.
	as := nonEmptyString(fs, "as", "call as this `agent` (default: the config's default_agent, cli; not empty)")
	asJSON := fs.Bool("json", false, "print the result (or the error) as JSON on standard output")
	// An empty --version (a script's --version "$PIN" with PIN lost) is
	// refused: taken as no --version, it called the default version,
	// which may break the script's callers.
	version := nonEmptyString(fs, "version", "SemVer `constraint` for the tool version, e.g. ^1.2 (default: the tool's default version, the newest non-deprecated release, a pre-release only when no release qualifies; not empty)")
	timeout := fs.Duration("timeout", 0, "deadline for the call, e.g. 5s; at least 1ms, rounded up to whole milliseconds (default: the config's limits.default_deadline)")
	socket := nonEmptyString(fs, "socket", "call through the host running on this unix socket `path` (default: server.socket, else <data>/aios-host.sock, when a host answers there and --as is not given, else in-process)")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	// JSON params typed without quotes around them (call TOOL
	// {"object_id": "x"}) come as several arguments, split by the shell
	// at their spaces and without their double quotes: "got 3
	// arguments" did not say so.
	if len(pos) > 2 {
		if p := strings.TrimSpace(pos[1]); strings.HasPrefix(p, "{") || strings.HasPrefix(p, "[") {
			return c.usageError(fs, "the JSON params reached aios-host as %d arguments (%s): the shell split them at their spaces and removed their double quotes; give them as one argument in single quotes, e.g. aios-host call %s '{\"name\": \"value\"}'", len(pos)-1, strings.Join(pos[1:], " "), pos[0])
		}
	}
	if len(pos) < 1 || len(pos) > 2 {
		return c.usageError(fs, "call needs a tool name and optional JSON params, got %d arguments", len(pos))
	}
	tool := pos[0]
	if err := abi.ValidateToolName(tool); err != nil {
		return c.usageError(fs, "%v", err)
	}
	timeoutSet := false
	fs.Visit(func(f *flag.Flag) { timeoutSet = timeoutSet || f.Name == "timeout" })
	switch {
	case timeoutSet && *timeout == 0:
		return c.usageError(fs, "--timeout 0s is below 1ms (leave it out for limits.default_deadline)")
	case *timeout < 0:
		return c.usageError(fs, "--timeout %s is negative", *timeout)
	case *timeout > 0 && *timeout < time.Millisecond:
		return c.usageError(fs, "--timeout %s is below 1ms, the resolution of call deadlines", *timeout)
	}
	// Deadlines travel to a running host in whole milliseconds: round up,
	// so a call in this process gets the same one.
	if r := *timeout % time.Millisecond; r != 0 {
		if *timeout > math.MaxInt64-time.Millisecond {
			*timeout -= r // rounding up would overflow into a negative deadline
		} else {
			*timeout += time.Millisecond - r
		}
	}
	if *version != "" {
		if _, err := semver.NewConstraint(*version); err != nil {
			return c.usageError(fs, "--version %q is not a SemVer constraint (e.g. 1.2.3, ^1.2, ~1.4): %v", *version, err)
		}
	}
	if *as != "" && *socket != "" {
		return c.usageError(fs, "--as cannot be used with --socket: the running host picks the agent from your uid (server.uids)")
	}
	cfg, err := c.config()
	if err != nil {
		return c.fail(err)
	}
	raw, what := []byte("{}"), "params"
	if len(pos) == 2 {
		raw = []byte(pos[1])
		if pos[1] == "-" {
			what = "params from standard input"
			if raw, err = readLimited(c.stdin, int64(cfg.Limits.MaxParamsBytes), what, "limits.max_params_bytes"); err != nil {
				if tl := (*tooLargeError)(nil); errors.As(err, &tl) {
					// The host's TooLarge for params over the limit
					// given inline (with --json, the same object).
					return c.printToolError(&abi.ToolError{Code: abi.TooLarge, Message: err.Error() + "; pass bulk data as a Space ObjectId",
						Data: map[string]any{"limit": tl.limit}}, *asJSON)
				}
				return c.fail(err)
			}
			// A file saved with a UTF-8 byte order mark (Notepad,
			// PowerShell's pipe): ignored, as RFC 8259 §8.1 allows
			// and `mcp` does on its standard input.
			raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
		}
	}
	var params any
	if len(bytes.TrimSpace(raw)) == 0 {
		// "json: EOF" said nothing of where the params came from.
		fmt.Fprintf(c.stderr, "aios-host: %s are empty: want a JSON object, e.g. {}\n", what)
		return exitUsage
	}
	if err := wire.NotUnicodeText(raw); err != nil {
		// encoding/json reads an invalid byte or an escaped lone
		// surrogate as U+FFFD: the tool would get another string (a
		// running host's socket refuses such text too).
		fmt.Fprintf(c.stderr, "aios-host: %s cannot be taken: %v (JSON text must be Unicode)\n", what, err)
		return exitUsage
	}
	if err := abi.UnmarshalJSONValue(raw, &params); err != nil {
		// A bad value, not a bad command line: no usage text (exit 2 still).
		var se *json.SyntaxError
		switch msg, _ := wire.JSONSyntax(raw); {
		case errors.As(err, &se) && strings.HasSuffix(se.Error(), "exceeded max depth"):
			// JSON, nested past the parser's limit: say that limit.
			fmt.Fprintf(c.stderr, "aios-host: %s cannot be read: %s\n", what, msg)
		case msg == "" && !errors.As(err, &se):
			// JSON the host does not take (nested past 512 levels, a
			// number beyond a float64): not a syntax error to hunt for.
			fmt.Fprintf(c.stderr, "aios-host: %s cannot be taken: %v\n", what, err)
		case len(pos) == 2 && pos[1] != "-" && paramsFile(pos[1]) != "":
			// A file's name (curl's @file habit too): the hint about
			// quotes misled; say how a file's params are given.
			file, is := paramsFile(pos[1]), "is a file"
			if file != pos[1] {
				is = "names the file " + file
			}
			fmt.Fprintf(c.stderr, "aios-host: params are not valid JSON: %v; %q %s: to call with the params it holds, give - and redirect it: aios-host call %s - < %s\n",
				err, pos[1], is, tool, file)
		default:
			fmt.Fprintf(c.stderr, "aios-host: %s are not valid JSON: %v%s\n", what, err, jsonSyntaxHint(raw, err))
		}
		return exitUsage
	}
	if params == nil {
		// A running host takes tools/call's arguments: null as none
		// (the tool got {}), this process gave the tool null: refused
		// alike, as empty params are (jq's null for a missing key).
		fmt.Fprintf(c.stderr, "aios-host: %s are null: want a JSON object, e.g. {}\n", what)
		return exitUsage
	}
	log, err := c.logger(slog.LevelWarn)
	if err != nil {
		return c.usageError(fs, "%v", err)
	}

	ctx, stop := signal.NotifyContext(c.ctx, stopSignals()...)
	defer stop()
	if *as == "" {
		if hc, err := c.dialHost(cfg, *socket); err != nil {
			if *asJSON && errors.Is(err, errNoHost) {
				// The error object --json promises on stdout, as
				// for a host that does not answer (callViaSocket).
				c.printUnavailable(err)
			}
			return c.fail(err)
		} else if hc != nil {
			c.noticeRunningHost(hc.path, "give --as AGENT (without --socket) or another --data to load them in this process")
			wait := cfg.Limits.MaxDeadline + socketMargin
			if *timeout > 0 {
				wait = *timeout + socketMargin
				if wait < *timeout {
					wait = math.MaxInt64 // a --timeout near the largest duration
				}
			}
			return c.callViaSocket(ctx, log, hc, tool, *version, params, *timeout, wait, *asJSON)
		}
	}
	if *as == "" && cfg.DefaultAgent == "" {
		// default_agent: "" names no agent: the call was made, after
		// every plugin had loaded, and refused as one that "names no
		// caller; set caller to an agent", which says nothing of --as.
		fmt.Fprintf(c.stderr, "aios-host: no agent to call as: %s: default_agent is empty; give --as AGENT (agents: %s)\n", cfg.Where("default_agent"), strings.Join(slices.Sorted(maps.Keys(cfg.Agents)), ", "))
		return exitUsage
	}
	h, err := c.newHost(ctx, log, hostOptions{audit: true})
	if errors.Is(err, audit.ErrInUse) {
		// Another aios-host holds the log (a `run` without a socket
		// this call may use, as with --as, or an `mcp`): this call
		// keeps a log of its own, as an MCP session does.
		own := sessionAuditPath(cfg.AuditPath(), "call", time.Now(), os.Getpid())
		fmt.Fprintf(c.stderr, "aios-host: the audit log %s is in use by another aios-host; this call is recorded in %s (check it with aios-host audit verify FILE)\n", cfg.AuditPath(), own)
		h, err = c.newHost(ctx, log, hostOptions{audit: true, auditPath: own})
	}
	if err != nil {
		return c.fail(err)
	}
	// The host's shutdown, as run's and mcp's (awaitShutdown): a second
	// SIGINT or SIGTERM exits without waiting for it to finish. The
	// signals were taken by ctx's until it is stopped: an operator's
	// second Ctrl-C did nothing while an MCP server that would not go
	// was waited for (TestCallSecondSignalForcesExit).
	closeAll := func() int {
		return shutdown(stop, signalledAt(ctx, c.ctx, log), log, func() int {
			if err := closeHost(h, c.stderr); err != nil {
				return exitFail
			}
			return exitOK
		})
	}
	if ctx.Err() != nil {
		// Interrupted while the plugins loaded: say so, rather than a
		// NotFound for a tool whose provider did not finish loading.
		_ = closeAll()
		const msg = "interrupted while loading the plugins; the tool was not called"
		fmt.Fprintln(c.stderr, "aios-host: "+msg)
		if *asJSON {
			_ = writeJSON(c.stdout, map[string]any{"code": abi.Cancelled, "message": msg}, false)
		}
		return exitFail
	}
	call := &abi.ToolCall{Caller: *as, Tool: tool, Version: *version, Params: params}
	if call.Caller == "" {
		call.Caller = h.Config().DefaultAgent
	}
	if *timeout > 0 {
		call.Deadline = time.Now().Add(*timeout)
	}
	value, callErr := h.Call(ctx, call)
	if closeAll() != exitOK && callErr == nil {
		return exitFail // the audit record could not be written
	}
	if callErr != nil {
		return c.printToolError(abi.AsToolError(callErr, abi.Internal), *asJSON)
	}
	return c.printResult(value, *asJSON)
}

// printToolError reports a failed call: as a JSON object {code, message,
// data} on stdout with --json, else "code: message" on stderr, escaped
// for the terminal (the message is the tool's: termText).
// printUnavailable writes the --json error object of a command that
// found no host answering on its socket, or no answer from it: err is
// also said on stderr (c.fail).
func (c *cli) printUnavailable(err error) {
	_ = writeJSON(c.stdout, map[string]any{"code": abi.Unavailable, "message": err.Error()}, false)
}

func (c *cli) printToolError(te *abi.ToolError, asJSON bool) int {
	if asJSON {
		out := map[string]any{"code": te.Code, "message": te.Message}
		if te.Data != nil {
			out["data"] = abi.ForJSON(te.Data)
		}
		_ = writeJSON(c.stdout, out, false)
	} else {
		fmt.Fprintf(c.stderr, "%s: %s\n", termText(string(te.Code)), termText(te.Message))
	}
	return exitFail
}

// printResult prints a call's value: a string as it is (without --json),
// anything else as JSON, indented unless --json.
func (c *cli) printResult(value any, asJSON bool) int {
	if s, isString := value.(string); isString && !asJSON {
		if stdoutIsTerminal(c.stdout) {
			// The tool's text, as its error's is (printToolError):
			// what a terminal acts on is escaped, so a tool's
			// result cannot set the terminal's title or reorder the
			// text. To a file or a pipe it is written as it is.
			s = termText(s)
		}
		fmt.Fprintln(c.stdout, s)
		return exitOK
	}
	// Whole floats from 2^53 up in exponent form (abi.ForJSON), as the
	// server writes them: 2^60 left as 1152921504606847000, another number
	// to a reader that takes integers exactly.
	if err := writeJSON(c.stdout, abi.ForJSON(value), !asJSON); err != nil {
		return c.fail(fmt.Errorf("print result: %w", err))
	}
	return exitOK
}

// stdoutIsTerminal reports whether w, the command's standard output, is a
// terminal (a character device: /dev/null is one too, where escaping
// changes nothing anyone reads). A variable for the tests.
var stdoutIsTerminal = func(w io.Writer) bool {
	if ew, ok := w.(*errWriter); ok {
		w = ew.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// writeJSON prints v as JSON (indented when pretty) and a newline, with
// what a terminal acts on but JSON leaves as it is written as \u escapes
// (termSafeJSON): its strings are a tool's or a provider's.
func writeJSON(w io.Writer, v any, pretty bool) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(termSafeJSON(b.Bytes()))
	return err
}

// paramsFile is the file that the params argument arg names (arg, or
// arg without a leading "@", as curl takes a file), when it is no JSON
// and names a regular file; else "".
func paramsFile(arg string) string {
	for _, name := range []string{arg, strings.TrimPrefix(arg, "@")} {
		if name == "" || strings.ContainsAny(name[:1], "{[\"") {
			continue
		}
		if st, err := os.Stat(name); err == nil && st.Mode().IsRegular() {
			return name
		}
	}
	return ""
}

// jsonSyntaxHint says where a syntax error is and, for a key or string
// without double quotes ({n: 1}, {'n': 1}: a JavaScript or Python habit),
// how JSON writes it. "" for another error.
func jsonSyntaxHint(raw []byte, err error) string {
	var se *json.SyntaxError
	if errors.Is(err, io.ErrUnexpectedEOF) {
		// Cut short (a closing brace lost to shell quoting): say where it
		// ends, as a syntax error says its byte.
		return fmt.Sprintf(" (the JSON ends at byte %d before its value is complete: a closing }, ] or \" is missing)", len(bytes.TrimRight(raw, " \t\r\n")))
	}
	if !errors.As(err, &se) {
		return ""
	}
	hint := fmt.Sprintf(" (at byte %d)", se.Offset)
	if i := int(se.Offset) - 1; i >= 0 && i < len(raw) {
		if b := raw[i]; b == '\'' || b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' {
			if b != 't' && b != 'f' && b != 'n' || strings.Contains(se.Error(), "object key") {
				hint += `: JSON keys and strings take double quotes, e.g. '{"name": "value"}'`
			}
		}
	}
	return hint
}
