package main

import (
	"fmt"
	"log/slog"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/editdist"
	"github.com/aios-host/aios-host/registry"
	"github.com/aios-host/aios-host/runtimes/js"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// unmatchedSetting is a per-provider or per-tool setting of the config that
// names nothing the host serves.
type unmatchedSetting struct {
	Key     string // "providers.org.x", "rate_limits.per_tool.echo"
	Kind    string // "provider" or "tool"
	Suggest string // the closest served name, or ""
	// Disabled: a providers.<id>.disabled entry whose provider the host
	// never found (it disables nothing).
	Disabled bool
}

// unmatchedSettings returns the providers.<id> and rate_limits.per_tool
// keys of cfg that name no provider or tool in reg: a misspelt id or tool
// name leaves its trust, grants or rate unapplied, silently. A disabled
// provider is not expected to be served: its entry is unmatched when
// disabledSeen (Host.DisabledSeen) says no provider with its id was found
// and skipped and a served provider's id is close to it, as a misspelt id
// disabled nothing, and the provider meant was served, without a word. A
// per_tool pattern with * or ? is unmatched only when no served tool
// matches it.
func unmatchedSettings(cfg *config.Config, reg *registry.Registry, disabledSeen func(id string) bool) []unmatchedSetting {
	provs := map[string]bool{}
	var provNames []string
	for _, p := range reg.Providers() {
		if !provs[p.Info.ID] {
			provs[p.Info.ID] = true
			provNames = append(provNames, p.Info.ID)
		}
	}
	tools := map[string]bool{}
	var toolNames []string
	for _, e := range reg.Tools() {
		if !tools[e.Def.Name] {
			tools[e.Def.Name] = true
			toolNames = append(toolNames, e.Def.Name)
		}
	}
	sort.Strings(provNames)
	sort.Strings(toolNames)
	var out []unmatchedSetting
	ids := make([]string, 0, len(cfg.Providers))
	for id := range cfg.Providers {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		disabled := cfg.Providers[id].Disabled
		if provs[id] || disabled && disabledSeen(id) {
			continue
		}
		suggest := editdist.Closest(id, provNames, max(2, len(id)/4))
		if disabled && suggest == "" {
			// Disabled ahead of its install, most likely: nothing
			// served is what it may have meant.
			continue
		}
		out = append(out, unmatchedSetting{Key: config.JoinKey("providers", id), Kind: "provider", Suggest: suggest, Disabled: disabled})
	}
	out = append(out, unmatchedRuntimeOverrides(cfg, reg, provNames)...)
	names := make([]string, 0, len(cfg.RateLimits.PerTool))
	for name := range cfg.RateLimits.PerTool {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if tools[name] {
			continue
		}
		if strings.ContainsAny(name, "*?") {
			matched := false
			for _, t := range toolNames {
				if abi.Glob(name, t) {
					matched = true
					break
				}
			}
			if matched {
				continue
			}
			out = append(out, unmatchedSetting{Key: config.JoinKey("rate_limits.per_tool", name), Kind: "tool"})
			continue
		}
		out = append(out, unmatchedSetting{Key: config.JoinKey("rate_limits.per_tool", name), Kind: "tool", Suggest: editdist.Closest(name, toolNames, max(2, len(name)/4))})
	}
	return out
}

// warnUnmatchedSettings logs each setting of unmatchedSettings once the
// plugins are loaded. A provider or tool that arrives later (hot reload)
// still gets its settings: this is a warning, not an error.
func warnUnmatchedSettings(cfg *config.Config, h *host.Host, log *slog.Logger) {
	for _, u := range unmatchedSettings(cfg, h.Registry(), h.DisabledSeen) {
		msg := fmt.Sprintf("%s names no %s the host serves, so it applies to nothing (a %s loaded later still gets it)", u.Key, u.Kind, u.Kind)
		if u.Disabled {
			msg = fmt.Sprintf("%s is disabled, but names no provider the host found, so it disables nothing (a provider loaded later is disabled)", u.Key)
		}
		if u.Suggest != "" {
			msg += fmt.Sprintf("; did you mean %q?", u.Suggest)
		}
		log.Warn(msg, "setting", u.Key)
	}
}

// unmatchedRuntimeOverrides returns the per-provider keys of the runtime
// sections that name no provider reg serves: runtimes.wasm.providers (by
// provider id, or the name of a provider's .wasm file without its
// extension, as wasm.Config.LimitsFor looks them up) and
// runtimes.js.provider_budgets_mib (by id). A misspelt one left its
// provider on the runtime's defaults without a word. provNames are the
// served providers' ids, sorted.
func unmatchedRuntimeOverrides(cfg *config.Config, reg *registry.Registry, provNames []string) []unmatchedSetting {
	// Decoded as the loaders decode them (the file was checked at start:
	// a section that does not decode has nothing to compare).
	var wcfg wasm.Config
	var jcfg js.Config
	if cfg.Decode(cfg.Runtimes["wasm"], "runtimes.wasm", &wcfg) != nil {
		wcfg = wasm.Config{}
	}
	if cfg.Decode(cfg.Runtimes["js"], "runtimes.js", &jcfg) != nil {
		jcfg = js.Config{}
	}
	if len(wcfg.Providers) == 0 && len(jcfg.ProviderBudgets) == 0 {
		return nil
	}
	ids := map[string]bool{}
	stems := map[string]bool{}
	var stemNames []string
	for _, p := range reg.Providers() {
		ids[p.Info.ID] = true
		if strings.HasSuffix(p.Source, ".wasm") {
			stem := strings.TrimSuffix(filepath.Base(p.Source), filepath.Ext(p.Source))
			if !stems[stem] {
				stems[stem] = true
				stemNames = append(stemNames, stem)
			}
		}
	}
	sort.Strings(stemNames)
	var out []unmatchedSetting
	for _, key := range slices.Sorted(maps.Keys(wcfg.Providers)) {
		if ids[key] || stems[key] {
			continue
		}
		out = append(out, unmatchedSetting{Key: config.JoinKey("runtimes.wasm.providers", key), Kind: "provider",
			Suggest: editdist.Closest(key, append(slices.Clone(provNames), stemNames...), max(2, len(key)/4))})
	}
	for _, id := range slices.Sorted(maps.Keys(jcfg.ProviderBudgets)) {
		if ids[id] {
			continue
		}
		out = append(out, unmatchedSetting{Key: config.JoinKey("runtimes.js.provider_budgets_mib", id), Kind: "provider",
			Suggest: editdist.Closest(id, provNames, max(2, len(id)/4))})
	}
	return out
}
