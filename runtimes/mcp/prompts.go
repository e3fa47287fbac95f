package mcp

import (
	"errors"
	"fmt"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
)

// A prompt (prompts/list) becomes a tool mcp-<server>-prompt-<name> whose
// parameters are the prompt's arguments (strings; required as the server
// says) and whose result is prompts/get's: {description?, messages: [{role,
// content}]}, the messages an agent puts into its conversation. The seed
// maps MCP prompts to a conversation manager; the host has none, so a
// prompt is a tool any agent's conversation code can call, under the same
// grants, rate limits, screening and audit as the server's tools.

// PromptToolName is the aios name of the tool of a prompt of server: its
// name made a tool-name label as a resource's (resourceSlug).
func PromptToolName(server, prompt string) string {
	return "mcp-" + server + "-prompt-" + resourceSlug(prompt)
}

// Bounds of an imported prompt: a prompt is a template with a few
// arguments, not a document.
const (
	maxPromptArgs       = 64
	maxPromptArgNameLen = 256
)

// importPrompt converts one prompt into its tool.
func importPrompt(server string, p *mcpsdk.Prompt, endpointHost string) (abi.ToolDef, error) {
	if p == nil {
		return abi.ToolDef{}, errors.New("null prompt entry")
	}
	if p.Name == "" {
		return abi.ToolDef{}, errors.New("a prompt without a name")
	}
	if resourceSlug(p.Name) == "" {
		return abi.ToolDef{}, fmt.Errorf("prompt %q: its name has no ASCII letter or digit to name a tool by", p.Name)
	}
	name := PromptToolName(server, p.Name)
	if err := abi.ValidateToolName(name); err != nil {
		return abi.ToolDef{}, fmt.Errorf("prompt %q: %v", p.Name, err)
	}
	if len(p.Arguments) > maxPromptArgs {
		return abi.ToolDef{}, fmt.Errorf("prompt %q: %d arguments (at most %d)", p.Name, len(p.Arguments), maxPromptArgs)
	}
	props := map[string]any{}
	required := []any{}
	for i, a := range p.Arguments {
		if a == nil || a.Name == "" {
			return abi.ToolDef{}, fmt.Errorf("prompt %q: argument %d has no name", p.Name, i)
		}
		if len(a.Name) > maxPromptArgNameLen {
			return abi.ToolDef{}, fmt.Errorf("prompt %q: argument %d: a name of %d bytes (at most %d)", p.Name, i, len(a.Name), maxPromptArgNameLen)
		}
		if _, dup := props[a.Name]; dup {
			return abi.ToolDef{}, fmt.Errorf("prompt %q: argument %q listed twice", p.Name, a.Name)
		}
		prop := map[string]any{"type": "string"}
		if d := a.Description; d != "" {
			prop["description"] = d
		} else if a.Title != "" {
			prop["description"] = a.Title
		}
		props[a.Name] = prop
		if a.Required {
			required = append(required, a.Name)
		}
	}
	params := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		params["required"] = required
	}
	def := readDef(name, describe("Get the messages of MCP prompt "+p.Name, p.Description, p.Title), params, endpointHost,
		"mcp", server, "prompt")
	def.Returns = map[string]any{"type": "object", "required": []any{"messages"}, "properties": map[string]any{
		"description": map[string]any{"type": "string"},
		"messages": map[string]any{"type": "array", "items": map[string]any{"type": "object", "required": []any{"role", "content"},
			"properties": map[string]any{"role": map[string]any{"type": "string"}, "content": map[string]any{"type": "object"}}}},
	}}
	return def, nil
}

// promptArgs gives prompts/get's arguments (strings: the schema said so).
func promptArgs(params any) (map[string]string, error) {
	m, _ := params.(map[string]any)
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("argument %s: a %T, want a string", k, v)
		}
		out[k] = s
	}
	return out, nil
}

// promptResult is the canonical value of a prompts/get result.
func promptResult(r *mcpsdk.GetPromptResult) (any, error) {
	if r == nil {
		return nil, errors.New("no result")
	}
	if r.Messages == nil {
		r.Messages = []*mcpsdk.PromptMessage{}
	}
	for i, m := range r.Messages {
		if m == nil || m.Content == nil {
			return nil, fmt.Errorf("message %d has no content", i)
		}
	}
	return toGeneric(struct {
		Description string                  `json:"description,omitempty"`
		Messages    []*mcpsdk.PromptMessage `json:"messages"`
	}{r.Description, r.Messages})
}
