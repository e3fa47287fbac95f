package discovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/trust"
)

// tool.aios.yaml (seed 001 §6.1)
//
//	tool:                 # → adapter
//	  id: org.example.notes        # → adapter.id
//	  name: Notes                  # → adapter.name
//	  version: 1.2.0               # → adapter.version
//	  description, author, homepage, license: …
//	  protocol_version: 0.3.0      # optional, defaults to ProtocolVersion
//	capabilities:         # → skills[] (same members as a card skill, minus permission_level)
//	  - id: notes.create
//	    name: Create a note
//	    input_schema: {type: object, …}
//	permissions:          # → skills[].permission_level
//	  - skill: "notes.*"           # a skill id or a glob (* and ?); "*" for all
//	    level: high
//	features: {streaming: true}    # → capabilities (the card's protocol features)
//	endpoints, requirements, extensions, artifact, authentication: as in a card
//
// A skill takes the level of the first permissions rule that matches it;
// with none it is "medium". A capability may also give permission_level
// itself; a matching rule then overrides it. A rule that sets the level of
// no listed capability is refused: tools not listed keep their own level.

type yamlFile struct {
	Tool         yamlTool          `yaml:"tool"`
	Capabilities []Skill           `yaml:"capabilities"`
	Permissions  []yamlPermission  `yaml:"permissions"`
	Features     *CardCapabilities `yaml:"features"`
	Endpoints    *Endpoints        `yaml:"endpoints"`
	Requirements *yamlRequirements `yaml:"requirements"`
	Extensions   []string          `yaml:"extensions"`
	Artifact     *struct {
		Path   string            `yaml:"path"`
		SHA256 string            `yaml:"sha256"`
		Files  map[string]string `yaml:"files"`
	} `yaml:"artifact"`
	Authentication *Authentication `yaml:"authentication"`
}

type yamlTool struct {
	ID              string `yaml:"id"`
	Name            string `yaml:"name"`
	Version         string `yaml:"version"`
	Description     string `yaml:"description"`
	ProtocolVersion string `yaml:"protocol_version"`
	Author          string `yaml:"author"`
	Homepage        string `yaml:"homepage"`
	License         string `yaml:"license"`
}

type yamlPermission struct {
	Skill string `yaml:"skill"`
	Level string `yaml:"level"`
}

type yamlRequirements struct {
	Software *struct {
		Name       string `yaml:"name"`
		MinVersion string `yaml:"min_version"`
		Detection  *struct {
			DesktopFile string  `yaml:"desktop_file"`
			Executable  string  `yaml:"executable"`
			DBusService *string `yaml:"dbus_service"`
		} `yaml:"detection"`
	} `yaml:"software"`
	Dependencies []Dependency `yaml:"dependencies"`
	Capabilities []string     `yaml:"capabilities"`
}

// ParseYAML converts a tool.aios.yaml document into a validated card.
// Unknown keys are refused with their line.
func ParseYAML(data []byte, name string) (*Card, error) {
	if len(data) > MaxCardBytes {
		return nil, &CardError{Source: name, Msg: fmt.Sprintf("file is %d bytes, larger than the limit of %d", len(data), MaxCardBytes)}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &CardError{Source: name, Msg: "empty document"}
		}
		return nil, &CardError{Source: name, Msg: err.Error()}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, &CardError{Source: name, Msg: "more than one YAML document"}
	}
	// Checked as the config file is: an unknown key is named by its line
	// and key path with the key it probably meant (yaml.v3's KnownFields
	// named a Go type: "field verison not found in type discovery.yamlTool").
	var y yamlFile
	if err := config.DecodeFile(&doc, name, &y); err != nil {
		return nil, err
	}
	card, err := y.toCard(name)
	if err != nil {
		return nil, atLine(err, &doc)
	}
	// Round-trip through JSON so the card is validated exactly like one
	// read from adapter.json (and Raw is its JSON form).
	raw, err := card.Marshal()
	if err != nil {
		return nil, &CardError{Source: name, Msg: err.Error()}
	}
	c, err := ParseCard(raw, name)
	var ce *CardError
	if errors.As(err, &ce) {
		ce.Field = yamlField(ce.Field)
	}
	return c, atLine(err, &doc)
}

// atLine gives a CardError about a tool.aios.yaml the line of the key its
// field names (permissions[0].level: the line of that level), or of the
// nearest key on the way to it that the file has (a value the conversion
// made, or a required key that is missing: its parent's line).
func atLine(err error, doc *yaml.Node) error {
	var ce *CardError
	if errors.As(err, &ce) && ce.Field != "" && ce.Line == 0 {
		ce.Line = yamlLine(doc, ce.Field)
	}
	return err
}

// yamlLine returns the line of the node at path (keys separated by dots,
// sequence indexes in brackets: capabilities[1].input_schema) in doc, or
// of the deepest node on the way that exists; 0 when not even the first
// key does.
func yamlLine(doc *yaml.Node, path string) int {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	line := 0
	// A skill's id may follow its index (capabilities[1](notes.create)):
	// it is not a key, and its dots do not separate any.
	for strings.Contains(path, "(") {
		open := strings.Index(path, "(")
		end := strings.Index(path[open:], ")")
		if end < 0 {
			path = path[:open]
			break
		}
		path = path[:open] + path[open+end+1:]
	}
	for _, seg := range strings.Split(path, ".") {
		key, idx, _ := strings.Cut(seg, "[")
		if key != "" {
			if n.Kind != yaml.MappingNode {
				return line
			}
			found := false
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == key {
					line, n, found = n.Content[i].Line, n.Content[i+1], true
					break
				}
			}
			if !found {
				return line
			}
		}
		for idx != "" {
			num, rest, ok := strings.Cut(idx, "]")
			i, err := strconv.Atoi(num)
			if !ok || err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
				return line
			}
			n, line = n.Content[i], n.Content[i].Line
			idx = strings.TrimPrefix(rest, "[")
		}
	}
	return line
}

// yamlField names a card field (a CardError's path) by the yaml key it
// came from (§6.1 read backwards): adapter.* is tool.*, skills[] is
// capabilities[], the card's capabilities (protocol features) are
// features; endpoints, requirements, extensions, artifact and
// authentication keep their names.
func yamlField(f string) string {
	for _, m := range []struct{ card, yaml string }{{"adapter", "tool"}, {"capabilities", "features"}, {"skills", "capabilities"}} {
		if rest, ok := strings.CutPrefix(f, m.card); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			return m.yaml + rest
		}
	}
	return f
}

func (y *yamlFile) toCard(name string) (*Card, error) {
	fail := func(field, format string, args ...any) (*Card, error) {
		return nil, &CardError{Source: name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if y.Tool.ID == "" {
		return fail("tool.id", "required")
	}
	c := &Card{
		Adapter: AdapterInfo{ID: y.Tool.ID, Name: y.Tool.Name, Description: y.Tool.Description, Version: y.Tool.Version,
			ProtocolVersion: y.Tool.ProtocolVersion, Author: y.Tool.Author, Homepage: y.Tool.Homepage, License: y.Tool.License},
		Skills:         []Skill{},
		Endpoints:      y.Endpoints,
		Extensions:     y.Extensions,
		Authentication: y.Authentication,
	}
	if c.Adapter.ProtocolVersion == "" {
		c.Adapter.ProtocolVersion = ProtocolVersion
	}
	if y.Features != nil {
		c.Capabilities = *y.Features
	}
	for i, p := range y.Permissions {
		if p.Skill == "" {
			return fail(fmt.Sprintf("permissions[%d].skill", i), "required (a skill id, a glob, or \"*\")")
		}
		if !permissionLevels[p.Level] {
			return fail(fmt.Sprintf("permissions[%d].level", i), "%q is not one of public, low, medium, high, critical", p.Level)
		}
	}
	used := make([]bool, len(y.Permissions))
	for i, s := range y.Capabilities {
		in, err := normMap(s.InputSchema)
		if err != nil {
			return fail(fmt.Sprintf("capabilities[%d].input_schema", i), "%v", err)
		}
		out, err := normMap(s.OutputSchema)
		if err != nil {
			return fail(fmt.Sprintf("capabilities[%d].output_schema", i), "%v", err)
		}
		sk := s
		sk.InputSchema, sk.OutputSchema = in, out
		if sk.Name == "" {
			sk.Name = sk.ID
		}
		matched := false
		for j, p := range y.Permissions {
			if p.Skill == "*" || abi.Glob(p.Skill, sk.ID) {
				sk.PermissionLevel, matched = p.Level, true
				used[j] = true
				break
			}
		}
		if !matched && sk.PermissionLevel == "" {
			sk.PermissionLevel = abi.PermissionMedium
		}
		c.Skills = append(c.Skills, sk)
	}
	// A rule that sets the level of no listed capability does nothing: a
	// tool the artifact offers but capabilities does not list keeps its
	// own level, so {skill: notes.delete, level: critical} left
	// notes.delete at medium without a word.
	for j, p := range y.Permissions {
		if used[j] {
			continue
		}
		ids := make([]string, 0, len(c.Skills))
		for _, sk := range c.Skills {
			ids = append(ids, sk.ID)
		}
		listed := "none are listed"
		if len(ids) > 0 {
			listed = "listed: " + strings.Join(ids, ", ")
		}
		return fail(fmt.Sprintf("permissions[%d].skill", j), "%q sets the level of none of capabilities (%s; an earlier rule may match first): a level applies only to a tool listed under capabilities, so list it there", p.Skill, listed)
	}
	if r := y.Requirements; r != nil {
		c.Requirements = &Requirements{Dependencies: r.Dependencies, Capabilities: r.Capabilities}
		if sw := r.Software; sw != nil {
			c.Requirements.Software = &Software{Name: sw.Name, MinVersion: sw.MinVersion}
			if d := sw.Detection; d != nil {
				c.Requirements.Software.Detection = &Detection{DesktopFile: d.DesktopFile, Executable: d.Executable, DBusService: d.DBusService}
			}
		}
	}
	if a := y.Artifact; a != nil {
		c.Artifact = &trust.ArtifactPin{Path: a.Path, SHA256: a.SHA256, Files: a.Files}
	}
	return c, nil
}

func normMap(m map[string]any) (map[string]any, error) {
	if m == nil {
		return nil, nil
	}
	n, err := abi.Normalize(m)
	if err != nil {
		return nil, err
	}
	// Make sure the schema survives JSON (yaml may produce keys JSON lacks).
	if _, err := json.Marshal(n); err != nil {
		return nil, err
	}
	return n.(map[string]any), nil
}
