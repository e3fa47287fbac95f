package main

import (
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/registry"
)

// toolInfo is one element of `list --json`.
type toolInfo struct {
	Name               string   `json:"name"`
	Version            string   `json:"version"`
	Runtime            string   `json:"runtime"`
	Provider           string   `json:"provider"`
	Description        string   `json:"description"`
	Trust              string   `json:"trust"`
	CapabilityRequired []string `json:"capability_required"`
	Tags               []string `json:"tags"`
	Deprecated         bool     `json:"deprecated"`
	// Deprecation: since when, why and what replaces it, when given.
	Deprecation *abi.Deprecation `json:"deprecation,omitempty"`
	Source      string           `json:"source,omitempty"`
	// RegisteredAt is when the host registered this definition (UTC).
	RegisteredAt time.Time `json:"registered_at,omitzero"`
	// SemverViolation: the version breaks callers of the one below it
	// without a major version increase (registry.semver_check: warn).
	SemverViolation *registry.SemverViolation `json:"semver_violation,omitempty"`
}

func runList(c *cli, args []string) int {
	fs := c.flags("list", "list [--json] [--socket PATH] [global flags]", `
List every registered tool: name, version, runtime, provider and
description, sorted by name (newest version first). With --json, print a JSON
array of objects with name, version, runtime, provider, description, trust,
capability_required, tags, deprecated, deprecation (since, message,
replacement, when given), source, registered_at (when the host
registered that definition, UTC) and semver_violation (set when the version
breaks callers of the version below it without a major version increase).

When a host is running on the socket (--socket, else the config's
server.socket, else the data directory's), its tools are listed: --plugins
and --config do not change them; a server section that does not load is
an error.`)
	asJSON := fs.Bool("json", false, "print a JSON array")
	socket := nonEmptyString(fs, "socket", "ask the host running on this unix socket `path` (default: server.socket, else <data>/aios-host.sock, when a host answers there, else load in-process)")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return c.usageError(fs, "list takes no arguments, got %q", pos)
	}
	cfg, err := c.config()
	if err != nil {
		return c.fail(err)
	}
	if hc, err := c.dialHost(cfg, *socket); err != nil {
		return c.fail(err)
	} else if hc != nil {
		c.noticeRunningHost(hc.path, "stop that host or give another --data to load them in this process")
		return c.listViaSocket(hc, *asJSON)
	}
	log, err := c.logger(slog.LevelWarn)
	if err != nil {
		return c.usageError(fs, "%v", err)
	}
	h, err := c.newHost(c.ctx, log, hostOptions{})
	if err != nil {
		return c.fail(err)
	}
	defer closeHost(h, c.stderr)

	var tools []toolInfo
	for _, e := range h.Registry().Tools() {
		ti := toolInfo{
			Name:               e.Def.Name,
			Version:            e.Def.Version,
			Description:        e.Def.Description,
			CapabilityRequired: nonNil(e.Def.CapabilityRequired),
			Tags:               nonNil(e.Def.Tags),
			Deprecated:         e.Def.Deprecated,
			Deprecation:        e.Def.Deprecation,
			RegisteredAt:       e.RegisteredAt,
			SemverViolation:    e.Violation,
		}
		if e.Version != nil {
			ti.Version = e.Version.String()
		}
		if p := e.Provider; p != nil {
			ti.Runtime, ti.Provider, ti.Trust, ti.Source = p.Info.Runtime, p.Info.ID, p.Trust.String(), p.Source
		}
		tools = append(tools, ti)
	}
	sortTools(tools)
	if *asJSON {
		if tools == nil {
			tools = []toolInfo{}
		}
		if err := writeJSON(c.stdout, tools, true); err != nil {
			return c.fail(err)
		}
		return exitOK
	}
	if len(tools) == 0 {
		fmt.Fprintln(c.stdout, "no tools registered (plugin folders:", strings.Join(h.Config().Plugins, ", ")+")")
		return exitOK
	}
	return c.printToolTable(tools)
}

// sortTools orders tools by name, the newest version of a name first
// (SemVer precedence; a version that is not SemVer sorts after the others,
// by its text).
func sortTools(tools []toolInfo) {
	vers := make(map[string]*semver.Version, len(tools))
	for _, t := range tools {
		if _, done := vers[t.Version]; !done {
			v, err := semver.NewVersion(t.Version)
			if err != nil {
				v = nil
			}
			vers[t.Version] = v
		}
	}
	sort.SliceStable(tools, func(i, j int) bool {
		if tools[i].Name != tools[j].Name {
			return tools[i].Name < tools[j].Name
		}
		vi, vj := vers[tools[i].Version], vers[tools[j].Version]
		switch {
		case vi != nil && vj != nil:
			return vi.GreaterThan(vj)
		case vi != nil || vj != nil:
			return vi != nil
		}
		return tools[i].Version > tools[j].Version
	})
}

// printToolTable prints tools as the human-readable `list` table. Every
// cell goes through termCell: a Verified provider's description is served
// as it was given (only those below Verified are screened), and a
// running host's answer is another process's.
func (c *cli) printToolTable(tools []toolInfo) int {
	tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tRUNTIME\tPROVIDER\tDESCRIPTION")
	for _, t := range tools {
		desc := t.Description
		if t.Deprecated {
			desc = "(deprecated) " + desc
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", termCell(t.Name), termCell(t.Version), termCell(t.Runtime), termCell(t.Provider), termCell(clip(desc, 70)))
	}
	if err := tw.Flush(); err != nil {
		return c.fail(err)
	}
	return exitOK
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// clip shortens s to n runes, marking the cut.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
