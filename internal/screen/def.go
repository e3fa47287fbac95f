package screen

import (
	"strconv"

	"github.com/aios-host/aios-host/abi"
)

// Def screens what a model reads of a tool definition under p: its
// description, examples and deprecation message, and its schemas'
// descriptions and titles (instructions hidden there are the "tool
// poisoning" attack). Findings carry JSON pointers into the definition
// ("/description", "/parameters/properties/x/description"). Under Strip
// it returns a copy with those strings rewritten; def is not changed.
func Def(def abi.ToolDef, p Policy) (abi.ToolDef, []Finding) {
	if p == Off {
		return def, nil
	}
	desc, fs := Text(def.Description, "/description", p)
	params, f2 := Schema(def.Parameters, p)
	returns, f3 := Schema(def.Returns, p)
	fs = append(append(fs, prefixed(f2, "/parameters")...), prefixed(f3, "/returns")...)
	var examples []string
	for i, e := range def.Examples {
		s, f := Text(e, "/examples/"+strconv.Itoa(i), p)
		fs = append(fs, f...)
		if s != e && examples == nil {
			examples = append([]string(nil), def.Examples...)
		}
		if examples != nil {
			examples[i] = s
		}
	}
	var dep *abi.Deprecation
	if def.Deprecation != nil {
		msg, f := Text(def.Deprecation.Message, "/deprecation/message", p)
		fs = append(fs, f...)
		if msg != def.Deprecation.Message {
			d := *def.Deprecation
			d.Message = msg
			dep = &d
		}
	}
	if len(fs) == 0 || p != Strip {
		return def, fs
	}
	def.Description = desc
	if m, ok := params.(map[string]any); ok {
		def.Parameters = m
	}
	if m, ok := returns.(map[string]any); ok {
		def.Returns = m
	}
	if examples != nil {
		def.Examples = examples
	}
	if dep != nil {
		def.Deprecation = dep
	}
	return def, fs
}

func prefixed(fs []Finding, prefix string) []Finding {
	for i := range fs {
		fs[i].Path = prefix + fs[i].Path
	}
	return fs
}
