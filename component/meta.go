package component

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/editdist"
)

// MetaSection is the name of an optional custom section in a component's
// core module (C: __attribute__((section(".custom_section.aios-provider"))))
// holding JSON provider metadata: id, name, version, description,
// capabilities, and per-tool overrides (parameters/returns schema,
// description, capability_required).
const MetaSection = "aios-provider"

// toolMeta is what tools.NAME may set: every member of a ToolRegister's
// tool (docs/abi.md) but its name, which is the function's, so that a
// component's tool is described as any other runtime's.
type toolMeta struct {
	Description        string           `json:"description"`
	Parameters         map[string]any   `json:"parameters"`
	Returns            map[string]any   `json:"returns"`
	CapabilityRequired []string         `json:"capability_required"`
	Version            string           `json:"version"`
	Tags               []string         `json:"tags"`
	Examples           []string         `json:"examples"`
	Idempotent         bool             `json:"idempotent"`
	LatencyClass       string           `json:"latency_class"`
	PermissionLevel    string           `json:"permission_level"`
	MCPExportable      bool             `json:"mcp_exportable"`
	Deprecated         bool             `json:"deprecated"`
	Deprecation        *abi.Deprecation `json:"deprecation"`
}

type providerMeta struct {
	ID           string              `json:"id"`
	Name         string              `json:"name"`
	Version      string              `json:"version"`
	Description  string              `json:"description"`
	Capabilities []string            `json:"capabilities"`
	Tools        map[string]toolMeta `json:"tools"`
}

// readMeta reads the metadata section of the first core module that has
// one. JSON that does not parse, or holds a key this format does not have
// (a misspelt "capabilites"), refuses the load, naming the module and the
// fault: it was ignored, and the provider loaded under a default id and
// without the capabilities it asked for, with no word of why.
func readMeta(mods [][]byte) (*providerMeta, error) {
	for k, mod := range mods {
		data := customSection(mod, MetaSection)
		if data == nil {
			continue
		}
		var x providerMeta
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&x); err != nil {
			return nil, fmt.Errorf("core module %d: custom section %s: %w", k, MetaSection, unknownKey(err))
		}
		// Only white space may follow: dec.More is false before a closing
		// bracket or brace, so `{"id":"a"}],"tools":{…}}` read as {"id":"a"}.
		if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
			return nil, fmt.Errorf("core module %d: custom section %s: data after the JSON object at byte %d: %.20q", k, MetaSection, len(data)-len(rest), rest)
		}
		for k, t := range x.Tools {
			t.Parameters = normalizeMap(t.Parameters)
			t.Returns = normalizeMap(t.Returns)
			x.Tools[k] = t
		}
		return &x, nil
	}
	return &providerMeta{}, nil
}

func normalizeMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	var out any
	if err := unmarshalCanonical(b, &out); err != nil {
		return nil
	}
	r, _ := out.(map[string]any)
	return r
}

func customSection(mod []byte, name string) []byte {
	if len(mod) < 8 {
		return nil
	}
	pos := 8
	for pos < len(mod) {
		id := mod[pos]
		size, n := uleb(mod[pos+1:])
		if n == 0 {
			return nil
		}
		start := pos + 1 + n
		end := start + int(size)
		if end > len(mod) || end < start {
			return nil
		}
		if id == 0 {
			l, k := uleb(mod[start:end])
			if k > 0 && start+k+int(l) <= end && string(mod[start+k:start+k+int(l)]) == name {
				return mod[start+k+int(l) : end]
			}
		}
		pos = end
	}
	return nil
}

var (
	metaKeys = []string{"id", "name", "version", "description", "capabilities", "tools"}
	toolKeys = []string{"description", "parameters", "returns", "capability_required", "version", "tags", "examples",
		"idempotent", "latency_class", "permission_level", "mcp_exportable", "deprecated", "deprecation"}
)

// unknownKey words encoding/json's `json: unknown field "capabilites"` as
// the config's unknown keys are, with the key meant; other errors are
// returned as they are.
func unknownKey(err error) error {
	name, ok := strings.CutPrefix(err.Error(), "json: unknown field ")
	if !ok {
		return err
	}
	if n, e := strconv.Unquote(name); e == nil {
		name = n
	}
	msg := fmt.Sprintf("unknown key %q", name)
	switch {
	// A key of the other level (encoding/json does not say where it
	// was): "did you mean" the same key said nothing.
	case slices.Contains(metaKeys, name):
		msg += fmt.Sprintf(": %q is a key of the section's top level, not of tools.NAME", name)
	case slices.Contains(toolKeys, name):
		msg += fmt.Sprintf(": %q is a key of tools.NAME, not of the section's top level", name)
	default:
		if best := editdist.Closest(name, append(append([]string(nil), metaKeys...), toolKeys...), editdist.Limit(name)); best != "" {
			msg += fmt.Sprintf(", did you mean %q?", best)
		}
	}
	return fmt.Errorf("%s (known: %s; in tools.NAME: %s)", msg, strings.Join(metaKeys, ", "), strings.Join(toolKeys, ", "))
}
