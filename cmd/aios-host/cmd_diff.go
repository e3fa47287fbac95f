package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"text/tabwriter"

	"github.com/Masterminds/semver/v3"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/registry"
	"github.com/aios-host/aios-host/server/jsonrpc"
)

func runDiff(c *cli, args []string) int {
	fs := c.flags("diff", "diff TOOL [FROM] [TO] [--json] [--socket PATH] [global flags]", `
Show what changed in a tool's parameters and returns schemas between two
registered versions, and which changes break callers of FROM: a new required
parameter, a narrowed type or enum, tightened bounds; for results a removed or
no longer required field, a widened type; any change of a construct not
analysed ($ref, oneOf, anyOf, allOf, if/then, not, patternProperties, …).
TO defaults to the newest version, FROM to the version just below TO.

With --json, print {tool, from, to, from_provider, to_provider, breaking,
changes: [{path, kind, breaking, old, new}]}.

When a host is running on the socket (--socket, else the config's
server.socket, else the data directory's), its tools are compared:
--plugins and --config do not change them; a server section that does not
load is an error.`)
	asJSON := fs.Bool("json", false, "print the diff as JSON")
	socket := nonEmptyString(fs, "socket", "ask the host running on this unix socket `path` (default: server.socket, else <data>/aios-host.sock, when a host answers there, else load in-process)")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) < 1 || len(pos) > 3 {
		return c.usageError(fs, "diff needs a tool name and optional FROM and TO versions, got %d arguments", len(pos))
	}
	tool := pos[0]
	if err := abi.ValidateToolName(tool); err != nil {
		return c.usageError(fs, "%v", err)
	}
	var from, to string
	if len(pos) > 1 {
		from = pos[1]
	}
	if len(pos) > 2 {
		to = pos[2]
	}
	for _, v := range []struct{ name, value string }{{"FROM", from}, {"TO", to}} {
		if v.value == "" {
			continue
		}
		if _, err := semver.StrictNewVersion(v.value); err != nil {
			return c.usageError(fs, "%s %q is not a SemVer version (want e.g. 1.2.3): %v", v.name, v.value, err)
		}
	}
	cfg, err := c.config()
	if err != nil {
		return c.fail(err)
	}
	var d *registry.ToolDiff
	if hc, err := c.dialHost(cfg, *socket); err != nil {
		if *asJSON && errors.Is(err, errNoHost) {
			c.printUnavailable(err)
		}
		return c.fail(err)
	} else if hc != nil {
		c.noticeRunningHost(hc.path, "stop that host or give another --data to load them in this process")
		defer hc.Close()
		d = new(registry.ToolDiff)
		if err := hc.call(c.ctx, listWait, "aios/registry.diff", map[string]any{"tool": tool, "from": from, "to": to}, d); err != nil {
			var je *jsonrpc.Error
			if errors.As(err, &je) {
				return c.printToolError(je.ToolError(), *asJSON)
			}
			if *asJSON {
				c.printUnavailable(err) // no answer, a broken connection
			}
			return c.fail(err)
		}
	} else {
		log, err := c.logger(slog.LevelWarn)
		if err != nil {
			return c.usageError(fs, "%v", err)
		}
		h, err := c.newHost(c.ctx, log, hostOptions{})
		if err != nil {
			return c.fail(err)
		}
		defer closeHost(h, c.stderr)
		if d, err = h.Registry().Diff(tool, from, to); err != nil {
			return c.printToolError(abi.AsToolError(err, abi.Internal), *asJSON)
		}
	}
	if *asJSON {
		if err := writeJSON(c.stdout, d, true); err != nil {
			return c.fail(err)
		}
		return exitOK
	}
	return c.printDiff(d)
}

// printDiff prints a diff for people: a summary line, then one line per
// change. A path names the schema's properties and a value is the
// schema's, as the provider wrote them: both are printed through termCell.
func (c *cli) printDiff(d *registry.ToolDiff) int {
	verdict := "compatible"
	if d.Breaking {
		verdict = "BREAKING for callers of " + d.From
	}
	n := 0
	for _, ch := range d.Changes {
		if ch.Breaking {
			n++
		}
	}
	fmt.Fprintf(c.stdout, "%s %s (%s) → %s (%s): %d changes, %d breaking: %s\n",
		d.Tool, d.From, d.FromProvider, d.To, d.ToProvider, len(d.Changes), n, verdict)
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	for _, ch := range d.Changes {
		mark := ""
		if ch.Breaking {
			mark = "BREAKING"
		}
		detail := ""
		if ch.Old != nil || ch.New != nil {
			detail = fmt.Sprintf("%s → %s", jsonBrief(ch.Old), jsonBrief(ch.New))
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", mark, termCell(ch.Path), ch.Kind, termCell(detail))
	}
	if err := tw.Flush(); err != nil {
		return c.fail(err)
	}
	return exitOK
}

// jsonBrief renders a schema value in a change line ("none" when absent).
func jsonBrief(v any) string {
	if v == nil {
		return "none"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return clip(string(b), 60)
}
