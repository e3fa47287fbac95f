package mcp

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/aios-host/aios-host/abi"
)

// A resource template (resources/templates/list) becomes a read tool like
// a resource: mcp-<server>-read-<name>, whose parameters are the
// template's variables. A call expands the template (RFC 6570, levels 1–4)
// with its arguments and reads the URI it gives (resources/read).
//
// A variable of a path-like expression ({x}, {+x}, {/x}, {.x}) is required
// and may not be empty: without it the URI names another resource. One
// that appears only in a query, parameter or fragment expression ({?x},
// {&x}, {;x}, {#x}) is optional. A value is a string, a number or a
// boolean (written as JSON writes it); an exploded variable ({/path*},
// {?tags*}) also takes an array of them, which expands to a list.

// TemplateToolName is the aios name of the read tool of a resource
// template of server: as ResourceToolName, from the template's name, or
// its URI template when the name has no ASCII letter or digit.
func TemplateToolName(server string, rt *mcpsdk.ResourceTemplate) string {
	n := resourceSlug(rt.Name)
	if n == "" {
		n = resourceSlug(rt.URITemplate)
	}
	return "mcp-" + server + "-read-" + n
}

// templateVar is one variable of a template, over all its expressions.
type templateVar struct {
	name     string
	required bool // in a path-like expression
	explode  bool // with the explode modifier somewhere
}

// maxTemplateBytes bounds a URI template (and maxTemplateVars its
// variables): a template is a URI pattern, not a document.
const (
	maxTemplateBytes = 8 << 10
	maxTemplateVars  = 64
)

// templateVars lists the variables of a URI template in order of first
// appearance. The template must already have been parsed by uritemplate
// (which checks its syntax); this reads what that package does not tell:
// each expression's operator and each variable's explode modifier.
func templateVars(tmpl string) ([]templateVar, error) {
	var vars []templateVar
	index := map[string]int{}
	for rest := tmpl; ; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return nil, errors.New("an expression without its closing '}'")
		}
		expr := rest[i+1 : i+j]
		rest = rest[i+j+1:]
		required := true
		if expr != "" && strings.IndexByte("+#./;?&", expr[0]) >= 0 {
			switch expr[0] {
			case '?', '&', ';', '#':
				required = false
			}
			expr = expr[1:]
		}
		for _, spec := range strings.Split(expr, ",") {
			explode := strings.HasSuffix(spec, "*")
			name := strings.TrimSuffix(spec, "*")
			if k := strings.IndexByte(name, ':'); k >= 0 {
				name = name[:k]
			}
			if !validVarname(name) {
				return nil, fmt.Errorf("variable %q: not an RFC 6570 variable name", name)
			}
			if k, ok := index[name]; ok {
				vars[k].required = vars[k].required || required
				vars[k].explode = vars[k].explode || explode
				continue
			}
			if len(vars) == maxTemplateVars {
				return nil, fmt.Errorf("more than %d variables", maxTemplateVars)
			}
			index[name] = len(vars)
			vars = append(vars, templateVar{name: name, required: required, explode: explode})
		}
	}
	return vars, nil
}

// validVarname: RFC 6570 varname, ALPHA / DIGIT / "_" / pct-encoded,
// with single dots between them.
func validVarname(n string) bool {
	if n == "" || n[0] == '.' || n[len(n)-1] == '.' || strings.Contains(n, "..") {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.':
		case c == '%' && i+2 < len(n) && isHex(n[i+1]) && isHex(n[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// importTemplate converts one resource template into a read tool and the
// parsed template its calls expand.
func importTemplate(server string, rt *mcpsdk.ResourceTemplate, endpointHost string) (abi.ToolDef, *uritemplate.Template, error) {
	if rt == nil {
		return abi.ToolDef{}, nil, errors.New("null resource template entry")
	}
	if rt.URITemplate == "" {
		return abi.ToolDef{}, nil, fmt.Errorf("resource template %q has no uriTemplate", rt.Name)
	}
	if len(rt.URITemplate) > maxTemplateBytes {
		return abi.ToolDef{}, nil, fmt.Errorf("resource template %q: uriTemplate of %d bytes (at most %d)", rt.Name, len(rt.URITemplate), maxTemplateBytes)
	}
	name := TemplateToolName(server, rt)
	if err := abi.ValidateToolName(name); err != nil {
		return abi.ToolDef{}, nil, fmt.Errorf("resource template %q: %v", rt.URITemplate, err)
	}
	tmpl, err := uritemplate.New(rt.URITemplate)
	if err != nil {
		return abi.ToolDef{}, nil, fmt.Errorf("resource template %q: uriTemplate: %v", rt.URITemplate, err)
	}
	vars, err := templateVars(rt.URITemplate)
	if err != nil {
		return abi.ToolDef{}, nil, fmt.Errorf("resource template %q: %v", rt.URITemplate, err)
	}
	props := map[string]any{}
	required := []any{}
	for _, v := range vars {
		scalar := map[string]any{"type": []any{"string", "number", "boolean"}}
		desc := "URI template variable {" + v.name + "}"
		var p map[string]any
		if v.explode {
			p = map[string]any{"anyOf": []any{scalar, map[string]any{"type": "array", "items": scalar}}}
		} else {
			p = scalar
		}
		if v.required {
			p["minLength"] = int64(1) // applies to a string only
			p["minItems"] = int64(1)  // and this to an array only
			required = append(required, v.name)
		}
		p["description"] = desc
		props[v.name] = p
	}
	params := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		params["required"] = required
	}
	return readDef(name, describe("Read MCP resources "+rt.URITemplate, rt.Description, rt.Title), params, endpointHost,
		"mcp", server, "resource", "template"), tmpl, nil
}

// expandTemplate gives the URI a call's params name. The params were
// validated against the tool's schema; what is checked here is what the
// schema cannot say.
func expandTemplate(tmpl *uritemplate.Template, params map[string]any) (string, error) {
	vals := uritemplate.Values{}
	for k, v := range params {
		switch v := v.(type) {
		case []any:
			list := make([]string, 0, len(v))
			for i, e := range v {
				s, err := templateValue(e)
				if err != nil {
					return "", fmt.Errorf("%s[%d]: %v", k, i, err)
				}
				list = append(list, s)
			}
			vals.Set(k, uritemplate.List(list...))
		default:
			s, err := templateValue(v)
			if err != nil {
				return "", fmt.Errorf("%s: %v", k, err)
			}
			vals.Set(k, uritemplate.String(s))
		}
	}
	uri, err := tmpl.Expand(vals)
	if err != nil {
		return "", err
	}
	return uri, nil
}

// templateValue writes one scalar argument as a template value.
func templateValue(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case uint64:
		return strconv.FormatUint(v, 10), nil
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return "", fmt.Errorf("%v is not a number JSON can write", v)
		}
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	default:
		return "", fmt.Errorf("a %T is not a string, number or boolean", v)
	}
}
