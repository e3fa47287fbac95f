package main

import (
	"errors"
	"flag"
	"fmt"
	"net/netip"
	"path"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/server"
)

// auditFilter is what `audit show` selects: every set field must match.
type auditFilter struct {
	tool, caller, principal, session, outcome, call, remote string
	refused                                                 bool
	since, until                                            time.Time
	toolSlashless                                           string // tool for toolGlob
	// remoteAddr is remote parsed: an IP (port 0), or an IP and port.
	remoteAddr netip.AddrPort
	// tree is the call and every call nested in it, at any depth (--call).
	tree map[string]bool
}

// showFlags are the flags of `audit show`.
type showFlags struct {
	tool, caller, principal, session, outcome, call, since, until, remote *string
	limit                                                                 *int
	json, refused                                                         *bool
}

func addShowFlags(fs *flag.FlagSet) showFlags {
	return showFlags{
		tool:      nonEmptyString(fs, "tool", "show: records of tools matching this glob `pattern` (* and ?; with an @, TOOL@VERSION)"),
		caller:    nonEmptyString(fs, "caller", "show: records of this `agent` (or provider, for nested calls)"),
		principal: nonEmptyString(fs, "principal", "show: records of this `principal` (uid:N, token:NAME, oauth:SUB, anonymous)"),
		session:   nonEmptyString(fs, "session", "show: records of this MCP `session` id"),
		remote:    nonEmptyString(fs, "remote", "show: records of HTTP requests from this `address` (an IP, or IP:port)"),
		outcome:   nonEmptyString(fs, "outcome", "show: records with this `outcome`: ok, an error code (CapabilityDenied, Timeout, …), or error (any but ok)"),
		call:      nonEmptyString(fs, "call", "show: the record of this call `id` and those of the calls nested in it, at any depth"),
		since:     nonEmptyString(fs, "since", "show: records of calls started at or after `TIME` (RFC 3339, or a duration before now: 1h, 30m)"),
		until:     nonEmptyString(fs, "until", "show: records of calls started before `TIME` (RFC 3339, or a duration before now)"),
		limit:     fs.Int("limit", 0, "show: only the last `N` matching records (0: all)"),
		json:      fs.Bool("json", false, "show: print the matching records as they are in the log, one JSON object a line"),
		refused:   fs.Bool("refused", false, "show: records of calls refused something for want of a capability: outcome CapabilityDenied, or a host service's refusal the tool caught (its error begins \"host service refused during the call\")"),
	}
}

// set lists the show flags given (for the other subcommands' refusal).
func (f showFlags) set(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(fl *flag.Flag) { // in name order
		if strings.HasPrefix(fl.Usage, "show: ") {
			out = append(out, "--"+fl.Name)
		}
	})
	return out
}

// parseShowTime reads an RFC 3339 time or a duration before now.
func parseShowTime(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, rfc3339Go(s)); err == nil {
		return t, nil
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is neither an RFC 3339 time (2026-12-02T15:04:05Z) nor a duration before now (1h, 30m)", s)
}

// rfc3339Go is s, an RFC 3339 time in a form RFC 3339 allows that Go's
// time.RFC3339 does not (5.6: a space for the "T", as `date
// --rfc-3339=seconds` prints; a lower-case "t" and "z"), in Go's form.
// Other text is returned as it is.
func rfc3339Go(s string) string {
	if len(s) < len("2006-01-02T15:04:05Z") || s[4] != '-' || s[7] != '-' {
		return s
	}
	b := []byte(s)
	if b[10] == ' ' || b[10] == 't' {
		b[10] = 'T'
	}
	if b[len(b)-1] == 'z' {
		b[len(b)-1] = 'Z'
	}
	return string(b)
}

func (f showFlags) filter(now time.Time) (auditFilter, error) {
	af := auditFilter{tool: *f.tool, caller: *f.caller, principal: *f.principal, session: *f.session, outcome: *f.outcome, call: *f.call, remote: *f.remote, refused: *f.refused}
	if af.tool != "" {
		if _, err := path.Match(af.tool, ""); err != nil {
			return af, fmt.Errorf("--tool %q: %v", af.tool, err)
		}
		af.toolSlashless = slashFree(af.tool)
	}
	if af.remote != "" {
		ap, err := parseRemote(af.remote)
		if err != nil {
			return af, fmt.Errorf("--remote %q: want an IP address (10.0.0.5, 2001:db8::1) or IP:port (10.0.0.5:4000, [2001:db8::1]:4000)", af.remote)
		}
		af.remoteAddr = ap
	}
	// Codes are case-sensitive: "timeout" would select no record of a
	// log full of Timeout ones, which reads as "no call timed out". An
	// unknown code is taken as it is (an older log's).
	for _, c := range append([]string{"ok", "error"}, codeNames()...) {
		if af.outcome != c && strings.EqualFold(af.outcome, c) {
			return af, fmt.Errorf("--outcome %q: outcomes are case-sensitive: want %s", af.outcome, c)
		}
	}
	var err error
	if *f.since != "" {
		if af.since, err = parseShowTime(*f.since, now); err != nil {
			return af, fmt.Errorf("--since: %v", err)
		}
	}
	if *f.until != "" {
		if af.until, err = parseShowTime(*f.until, now); err != nil {
			return af, fmt.Errorf("--until: %v", err)
		}
	}
	if !af.since.IsZero() && !af.until.IsZero() && !af.since.Before(af.until) {
		// The wrong way round (--since 1h --until 2h): no call can
		// match, and "no record matches" read as none in that time.
		return af, fmt.Errorf("--since %s (%s) is not before --until %s (%s): no call starts in that time", *f.since, af.since.UTC().Format(time.RFC3339Nano), *f.until, af.until.UTC().Format(time.RFC3339Nano))
	}
	if *f.limit < 0 {
		return af, fmt.Errorf("--limit %d: want 0 (all) or more", *f.limit)
	}
	return af, nil
}

// toolGlob matches a tool name against pattern as path.Match does, but *
// and ? match a '/' too: tool names have none, the host's record of a
// Space read (aios/space.read) has one, and --tool '*' must not leave it
// out. slashless is pattern with its '/' as NUL (slashFree), made once.
func toolGlob(pattern, slashless, name string) bool {
	if strings.Contains(name, "\x00") { // a client's name of a call that found no tool
		ok, _ := path.Match(pattern, name)
		return ok
	}
	ok, _ := path.Match(slashless, slashFree(name))
	return ok
}

// toolFilterName is what --tool pattern is matched against: r's tool, or
// for a pattern with an '@' (no tool name has one) the tool as the table
// shows it, TOOL@VERSION. "echo@1.0.0" copied from the table selected no
// record, as if no call of it were in the log.
func toolFilterName(pattern string, r *audit.Record) string {
	if strings.Contains(pattern, "@") && r.Version != "" {
		return r.Tool + "@" + r.Version
	}
	return r.Tool
}

// slashFree is s with each '/' as NUL, which path.Match's * and ? match.
func slashFree(s string) string { return strings.ReplaceAll(s, "/", "\x00") }

// codeNames are abi.KnownCodes as strings.
func codeNames() []string {
	out := make([]string, len(abi.KnownCodes))
	for i, c := range abi.KnownCodes {
		out[i] = string(c)
	}
	return out
}

// match says whether r is selected.
func (af *auditFilter) match(r *audit.Record) bool {
	if af.tool != "" && !toolGlob(af.tool, af.toolSlashless, toolFilterName(af.tool, r)) {
		return false
	}
	if af.caller != "" && r.Caller != af.caller || af.principal != "" && r.Principal != af.principal ||
		af.session != "" && r.Session != af.session || af.remote != "" && !remoteMatch(af.remoteAddr, r.Remote) {
		return false
	}
	switch af.outcome {
	case "":
	case "error":
		if r.Outcome == "ok" {
			return false
		}
	default:
		if r.Outcome != af.outcome {
			return false
		}
	}
	if af.refused && !audit.Refused(r.Outcome, r.Error) {
		return false
	}
	if af.call != "" && !af.tree[r.CallID] {
		return false
	}
	if !af.since.IsZero() || !af.until.IsZero() {
		t, err := time.Parse(time.RFC3339Nano, r.Time) // verified: it parses
		if err != nil || !af.since.IsZero() && t.Before(af.since) || !af.until.IsZero() && !t.Before(af.until) {
			return false
		}
	}
	return true
}

// callTree finds, in one reading of the log, a call and every call
// nested in it, at any depth (--call). A nested call's record comes before
// its parent's, so a record whose parent is not (yet) in the tree is kept
// in pending, under its parent, until the parent joins the tree or the
// top-level call above it has its record: then all of that call's nested
// calls have theirs and, outside the tree, they are forgotten. What is held
// is the tree and the nested calls of the top-level calls in progress, not
// every nested call of the log (before, a map of them all: 430 MB to show
// one call of a 600 MB log).
type callTree struct {
	tree    map[string]bool
	pending map[string][]string // parent id → ids of its calls seen so far
}

func newCallTree(root string) *callTree {
	return &callTree{tree: map[string]bool{root: true}, pending: map[string][]string{}}
}

// add takes the records in log order.
func (t *callTree) add(r *audit.Record) {
	switch {
	case t.tree[r.CallID] || r.ParentID != "" && t.tree[r.ParentID]:
		// The root, or a call nested in the tree (a late record too: a
		// nested call that ended after its parent), with the calls
		// nested in it that came first.
		t.walk(r.CallID, true)
	case r.ParentID == "" || strings.HasPrefix(r.ParentID, server.ClientParentPrefix):
		t.walk(r.CallID, false) // a top-level call outside the tree
	default:
		t.pending[r.ParentID] = append(t.pending[r.ParentID], r.CallID)
	}
}

// walk moves id and the calls pending under it, at any depth, into the
// tree (join) or drops them.
func (t *callTree) walk(id string, join bool) {
	for todo := []string{id}; len(todo) > 0; {
		id := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if join && id != "" {
			t.tree[id] = true
		}
		todo = append(todo, t.pending[id]...)
		delete(t.pending, id) // before its calls: a cycle (an edited log) ends
	}
}

// shown is one selected record, kept for --limit.
type shown struct {
	rec  audit.Record
	line []byte
}

// auditShow verifies the log's files as verify does and prints the records
// the filter selects. A log that fails verification prints what was
// selected before the bad line, then the failure, and exits 1: a viewer of
// an audit log must not show records that cannot be trusted.
// current is the configured log when files is its listing (verifyLog).
// af is f's filter (showFlags.filter).
func (c *cli) auditShow(files []string, current string, opts audit.VerifyOptions, f showFlags, af auditFilter) int {
	if af.call != "" {
		// A nested call's record comes before its parent's (it ends
		// first), so the tree is known only after a first reading.
		ct := newCallTree(af.call)
		o := opts
		o.Each = func(r *audit.Record, _ []byte) error {
			ct.add(r)
			return nil
		}
		files, _, _, _, _ = verifyLog(files, current, o) // a failure is reported by the reading below
		af.tree = ct.tree
	}
	limit := *f.limit
	var ring []shown
	next := 0
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	if !*f.json {
		fmt.Fprintln(tw, "SEQ\tTIME\tCALLER\tPRINCIPAL\tTOOL\tOUTCOME\tLATENCY\tCALL\tPARENT")
	}
	n := 0
	print := func(r *audit.Record, line []byte) {
		n++
		if *f.json {
			c.stdout.Write(append(termSafeJSON(line), '\n'))
			return
		}
		tool := toolFilterName("@", r)
		out := r.Outcome
		if r.Untrusted {
			out += " (untrusted)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Seq, cell(r.Time), cell(r.Caller), cell(r.Principal), cell(tool), cell(out),
			time.Duration(r.LatencyUS)*time.Microsecond, cell(r.CallID), cell(r.ParentID))
		if n%512 == 0 {
			tw.Flush() // a long listing is not held in memory
		}
	}
	opts.Each = func(r *audit.Record, line []byte) error {
		if !af.match(r) {
			return nil
		}
		if limit == 0 {
			print(r, line)
			return nil
		}
		s := shown{rec: *r, line: append([]byte(nil), line...)}
		if len(ring) < limit {
			ring = append(ring, s)
		} else {
			ring[next] = s
			next = (next + 1) % limit
		}
		return nil
	}
	_, _, _, failed, verr := verifyLog(files, current, opts)
	for i := range ring {
		s := &ring[(next+i)%len(ring)]
		print(&s.rec, s.line)
	}
	var ve *audit.VerifyError
	if verr != nil && n == 0 && !errors.As(verr, &ve) {
		// A log that could not be read at all (no such file): the
		// error alone, not a table header over nothing on stdout.
		return c.fail(verr)
	}
	tw.Flush()
	if verr != nil {
		if errors.As(verr, &ve) {
			fmt.Fprintf(c.stderr, "%s:%d: %s\n", failed, ve.Line, ve.Reason)
			fmt.Fprintf(c.stderr, "aios-host: the log fails verification at %s line %d: records from there on are not shown\n", failed, ve.Line)
			return exitFail
		}
		return c.fail(verr)
	}
	if n == 0 && !*f.json {
		fmt.Fprintln(c.stderr, "no record matches")
	}
	return exitOK
}

// termSafeJSON returns line with every character strconv.IsPrint refuses
// above ASCII (C1 controls, which some terminals run as escape sequences;
// bidi overrides and other format characters, which reorder what is
// shown; unassigned code points) written as a \u escape: the same JSON
// value, but no byte a terminal acts on. The log escapes only the
// characters below 0x20, and some strings in it are a client's choice (a
// tool name that found no tool). Such lines then differ in bytes from the
// log's: its hash chain is checked on the file (audit verify), not on this
// output. A line without such characters is returned as it is.
func termSafeJSON(line []byte) []byte {
	i := 0
	for i < len(line) && line[i] < utf8.RuneSelf {
		i++
	}
	if i == len(line) {
		return line
	}
	var out []byte
	last := 0
	for i < len(line) {
		if line[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && size == 1 || strconv.IsPrint(r) {
			i += size // invalid UTF-8 is not in a verified line; kept as is
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(line)+12)
		}
		out = append(out, line[last:i]...)
		if r > 0xFFFF {
			r1, r2 := utf16.EncodeRune(r)
			out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		} else {
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		i += size
		last = i
	}
	if out == nil {
		return line
	}
	return append(out, line[last:]...)
}

// cell writes a record's string for the table: "-" when empty, escaped as
// a Go string is (some are a client's choice: a tool name that found no
// tool, a parent_id, a token subject; a terminal must not run them).
func cell(s string) string {
	if s == "" {
		return "-"
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// parseRemote reads an IP:port, or an IP address ([ ] around an IPv6 one
// allowed), port 0. IP:port is tried first: a link-local peer's
// "[fe80::1%eth0]:4000" read as an address was fe80::1 in the zone
// "eth0]:4000", which matched no --remote.
func parseRemote(s string) (netip.AddrPort, error) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
	}
	ip, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if err != nil {
		return netip.AddrPort{}, err
	}
	if strings.ContainsAny(ip.Zone(), "[]") { // "[fe80::1%eth0]:http": a zone is an interface's name
		return netip.AddrPort{}, fmt.Errorf("zone %q is not an interface's name", ip.Zone())
	}
	return netip.AddrPortFrom(ip.Unmap(), 0), nil
}

// remoteMatch says whether a record's remote address (IP:port) is want:
// the same address, or want (port 0) is its IP. They are compared as
// addresses: 2001:DB8:0::1 is 2001:db8::1, ::ffff:10.0.0.5 is 10.0.0.5.
// A want without a zone matches a link-local address in any zone
// (fe80::1 selects [fe80::1%eth0]:4000).
func remoteMatch(want netip.AddrPort, remote string) bool {
	if remote == "" {
		return false
	}
	got, err := parseRemote(remote)
	if err != nil {
		return false
	}
	if want.Addr().Zone() == "" {
		got = netip.AddrPortFrom(got.Addr().WithZone(""), got.Port())
	}
	if want.Port() == 0 {
		return got.Addr() == want.Addr()
	}
	return got == want
}
