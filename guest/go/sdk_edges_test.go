package aios

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/guest/go/wire"
)

// probeTool registers a tool for one test and removes it afterwards (the
// registry is global: TestRegisterMessage counts its tools).
func probeTool(t *testing.T, name string, reg1 func()) {
	t.Helper()
	register()
	n := len(reg.tools)
	reg1()
	t.Cleanup(func() {
		delete(reg.handlers, name)
		reg.tools = reg.tools[:n]
	})
}

// serveResult serves one call as the host would read it back (wire's
// strict decoder, no bin), reporting a panic of serve as a failure: in a
// wasm guest a panic outside the handler traps the instance.
func serveResult(t *testing.T, tool string, params any) (value any, terr *wire.Error) {
	t.Helper()
	var out []byte
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("%s: serve panicked (the guest traps: ProviderCrashed \"wasm error: unreachable\"): %v", tool, r)
			}
		}()
		out = serve(callMsg(t, tool, params))
	}()
	v, err := wire.DecodeValue(out)
	if err != nil {
		t.Fatalf("%s: the host cannot read the result: %v", tool, err)
	}
	value, terr, err = wire.ParseResult(v)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return value, terr
}

type panickyErr struct{ m *string }

func (e panickyErr) Error() string { return *e.m }

// A handler returning a typed nil *aios.Error as its error (the classic Go
// mistake: `var err *aios.Error; …; return v, err`) or an error whose
// Error method panics made serve panic outside the handler's recover: the
// guest trapped and the caller got ProviderCrashed "wasm error:
// unreachable", nothing naming the tool or the mistake.
func TestHandlerErrorsDoNotTrap(t *testing.T) {
	probeTool(t, "probe-nilerr", func() {
		Handle(Tool{Name: "probe-nilerr"}, func(c *Call, p any) (any, error) {
			var e *Error
			return map[string]any{"ok": true}, e
		})
	})
	probeTool(t, "probe-panicerr", func() {
		Handle(Tool{Name: "probe-panicerr"}, func(c *Call, p any) (any, error) { return nil, panickyErr{} })
	})
	for _, c := range []struct{ tool, want string }{
		{"probe-nilerr", "nil *aios.Error"},
		{"probe-panicerr", "Error method panicked"},
	} {
		_, terr := serveResult(t, c.tool, nil)
		if terr == nil || terr.Code != ProviderError || !strings.Contains(terr.Message, c.tool) || !strings.Contains(terr.Message, c.want) {
			t.Fatalf("%s: %+v, want a ProviderError naming the tool and %q", c.tool, terr, c.want)
		}
	}
	var e *Error
	if s := e.Error(); !strings.Contains(s, "nil") {
		t.Fatalf("(*Error)(nil).Error() = %q", s)
	}
}

// A typed handler's result that encoding/json refuses (NaN, a channel) was
// an Internal error ("result cannot be encoded"), blaming the host, while
// the same result from a generic handler is InvalidResult naming the tool,
// as in the JS and Python SDKs.
func TestTypedResultNotJSON(t *testing.T) {
	type out struct{ F float64 }
	probeTool(t, "probe-typed-nan", func() {
		HandleFunc(Tool{Name: "probe-typed-nan"}, func(c *Call, in map[string]any) (out, error) { return out{F: math.NaN()}, nil })
	})
	_, terr := serveResult(t, "probe-typed-nan", nil)
	if terr == nil || terr.Code != InvalidResult || !strings.Contains(terr.Message, "probe-typed-nan") {
		t.Fatalf("%+v, want InvalidResult naming the tool", terr)
	}
}

// An error's Data holding bytes was written as MessagePack bin, which the
// host refuses in a result: the caller got InvalidResult "the guest's result
// is not a JSON value" instead of the tool's own error and code. Data of
// another Go type (a struct) was silently dropped.
func TestErrorDataIsJSON(t *testing.T) {
	probeTool(t, "probe-errdata", func() {
		Handle(Tool{Name: "probe-errdata"}, func(c *Call, p any) (any, error) {
			return nil, &Error{Code: NotFound, Message: "gone", Data: map[string]any{"raw": []byte("ab"), "n": 3}}
		})
	})
	probeTool(t, "probe-errstruct", func() {
		Handle(Tool{Name: "probe-errstruct"}, func(c *Call, p any) (any, error) {
			return nil, &Error{Code: NotFound, Message: "gone", Data: struct {
				Path string `json:"path"`
			}{"/x"}}
		})
	})
	_, terr := serveResult(t, "probe-errdata", nil)
	if terr == nil || terr.Code != NotFound || terr.Message != "gone" {
		t.Fatalf("%+v, want the tool's NotFound", terr)
	}
	if m, _ := terr.Data.(map[string]any); m == nil || m["raw"] != "YWI=" || m["n"] != int64(3) {
		t.Fatalf("data %#v, want the bytes as base64 (encoding/json's form) beside n", terr.Data)
	}
	_, terr = serveResult(t, "probe-errstruct", nil)
	if terr == nil || terr.Code != NotFound {
		t.Fatalf("%+v", terr)
	}
	if m, _ := terr.Data.(map[string]any); m == nil || m["path"] != "/x" {
		t.Fatalf("data %#v, want {path: /x}", terr.Data)
	}
}

// A schema written as a Go literal — nested typed maps and slices, as gofmt
// and editors suggest — made aios_register panic ("a tool schema is not a
// JSON value: … a Go map[string]map[string]interface {}"): the load failed
// with "aios_register trapped: wasm error: unreachable". encoding/json
// takes such values; so does the SDK now.
func TestSchemaGoLiterals(t *testing.T) {
	probeTool(t, "probe-schema", func() {
		Handle(Tool{Name: "probe-schema", Parameters: map[string]any{
			"type":       "object",
			"properties": map[string]map[string]any{"n": {"type": "integer", "minimum": float32(1.5), "maximum": int32(10)}},
			"required":   []string{"n"},
			"oneOf":      []map[string]any{{"required": []string{"n"}}},
		}}, func(c *Call, p any) (any, error) { return p, nil })
	})
	var msg []byte
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("registerMessage panicked: %v", r)
			}
		}()
		msg = registerMessage()
	}()
	v, err := wire.DecodeValue(msg)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range v.(map[string]any)["tools"].([]any) {
		m := tl.(map[string]any)
		if m["name"] != "probe-schema" {
			continue
		}
		p := m["parameters"].(map[string]any)
		n := p["properties"].(map[string]any)["n"].(map[string]any)
		if n["type"] != "integer" || n["minimum"] != 1.5 || n["maximum"] != int64(10) || p["oneOf"].([]any)[0].(map[string]any)["required"].([]any)[0] != "n" {
			t.Fatalf("parameters %#v", p)
		}
		return
	}
	t.Fatal("probe-schema is not in the ToolRegister")
}

// A schema that is not JSON at all (a channel, NaN) fails when the tool is
// registered (in init, whose panic the host quotes), naming the tool, not
// later in aios_register.
func TestSchemaNotJSONNamesTool(t *testing.T) {
	register()
	defer func() {
		r := recover()
		s, _ := r.(string)
		if !strings.Contains(s, "probe-badschema") || !strings.Contains(s, "Parameters") {
			t.Fatalf("recovered %v, want a panic naming the tool and its Parameters", r)
		}
		if _, ok := reg.handlers["probe-badschema"]; ok {
			delete(reg.handlers, "probe-badschema")
			t.Fatal("the tool was registered")
		}
	}()
	Handle(Tool{Name: "probe-badschema", Parameters: map[string]any{"type": "object", "x": make(chan int)}},
		func(c *Call, p any) (any, error) { return nil, nil })
}

// registerPanic runs reg1 (a registration) and returns what it panicked
// with, removing a tool it registered anyway.
func registerPanic(t *testing.T, name string, reg1 func()) string {
	t.Helper()
	register()
	n := len(reg.tools)
	var got any
	func() {
		defer func() { got = recover() }()
		reg1()
	}()
	if _, ok := reg.handlers[name]; ok {
		delete(reg.handlers, name)
		reg.tools = reg.tools[:n]
	}
	s, _ := got.(string)
	return s
}

type withChan struct {
	Name string
	C    chan int
}

type tagged struct {
	UserID string `json:"userId"`
	Count  int    `json:"count"`
}

type embedded struct {
	tagged
	Extra string `json:"-"`
}

// HandleFunc with a params or result type encoding/json cannot handle
// (a channel, a function, a complex number) registered fine: the params
// failed only when a caller sent that field, as the caller's
// InvalidParams; the result failed on every call. A params struct with no
// field for a property the schema requires (json tag userId for user_id)
// silently dropped the value the caller had to send. Both are the author's
// mistakes: registration now panics naming the tool, the type and the
// field or property (the host quotes the panic in its load error).
func TestTypedHandlerTypesChecked(t *testing.T) {
	schema := Schema(`{"type":"object","properties":{"user_id":{"type":"string"},"count":{"type":"integer"}},"required":["user_id"]}`)
	for _, c := range []struct {
		name string
		reg  func(name string)
		want []string
	}{
		{"chan-in", func(n string) {
			HandleFunc(Tool{Name: n}, func(c *Call, in withChan) (any, error) { return nil, nil })
		}, []string{"params", "C", "chan int"}},
		{"func-out", func(n string) {
			HandleFunc(Tool{Name: n}, func(c *Call, in map[string]any) (struct{ F func() }, error) { return struct{ F func() }{}, nil })
		}, []string{"result", "F", "func()"}},
		{"complex-in-slice", func(n string) {
			HandleFunc(Tool{Name: n}, func(c *Call, in struct{ Z []complex128 }) (any, error) { return nil, nil })
		}, []string{"params", "Z", "complex128"}},
		{"map-key", func(n string) {
			HandleFunc(Tool{Name: n}, func(c *Call, in map[string]any) (map[[2]int]string, error) { return nil, nil })
		}, []string{"result", "map key", "[2]int"}},
		{"required-no-field", func(n string) {
			HandleFunc(Tool{Name: n, Parameters: schema}, func(c *Call, in tagged) (any, error) { return nil, nil })
		}, []string{"user_id", "userId", "count"}},
		{"required-no-field-ptr-embedded", func(n string) {
			HandleFunc(Tool{Name: n, Parameters: schema}, func(c *Call, in *embedded) (any, error) { return nil, nil })
		}, []string{"user_id", "userId"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "probe-" + c.name
			got := registerPanic(t, name, func() { c.reg(name) })
			if !strings.Contains(got, name) {
				t.Fatalf("registration panicked with %q, want a panic naming the tool %s and %q", got, name, c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Fatalf("registration panicked with %q, want it to name %q", got, w)
				}
			}
		})
	}
	// What encoding/json handles registers: case-insensitive field names
	// (the docs' struct{ A, B int64 }), tags, embedded structs, pointers,
	// []byte, maps with int keys, interfaces, json.RawMessage, a field
	// of an unsupported type that is skipped by its tag.
	type ok struct {
		embedded
		A, B  int64
		P     *tagged
		Bytes []byte
		M     map[int]string
		Any   any
		Skip  chan int `json:"-"`
	}
	probeTool(t, "probe-typed-ok", func() {
		HandleFunc(Tool{Name: "probe-typed-ok", Parameters: Schema(`{"type":"object","required":["a","B","userId","count","bytes"]}`)},
			func(c *Call, in ok) (ok, error) { return in, nil })
	})
	v, terr := serveResult(t, "probe-typed-ok", map[string]any{"a": int64(1), "B": int64(2), "userId": "u", "count": int64(3), "bytes": "YWI="})
	m, _ := v.(map[string]any)
	if terr != nil || m["A"] != int64(1) || m["B"] != int64(2) || m["userId"] != "u" || m["count"] != int64(3) || m["Bytes"] != "YWI=" {
		t.Fatalf("%#v %+v", v, terr)
	}
}

// c.CallTool(tool, params any) refused params of any Go type but the
// canonical generic ones (a struct, a map[string]int, []string inside a
// map) with InvalidParams "host call arguments are not JSON values", while
// HandleFunc takes and returns such values with encoding/json rules; and a
// []byte in params went to the host as MessagePack bin, which is not a JSON
// value. Params now follow encoding/json rules, as HandleFunc's.
func TestCallToolTypedParams(t *testing.T) {
	type resize struct {
		ObjectID string `json:"object_id"`
		Width    int    `json:"width"`
	}
	for _, c := range []struct {
		name   string
		params any
		want   any
	}{
		{"struct", resize{"sha256:ab", 128}, map[string]any{"object_id": "sha256:ab", "width": int64(128)}},
		{"typed map", map[string]int{"a": 1}, map[string]any{"a": int64(1)}},
		{"nested typed", map[string]any{"tags": []string{"x"}, "n": int32(2)}, map[string]any{"tags": []any{"x"}, "n": int64(2)}},
		{"bytes", map[string]any{"raw": []byte("ab")}, map[string]any{"raw": "YWI="}},
		{"canonical", map[string]any{"big": uint64(1 << 63)}, map[string]any{"big": uint64(1 << 63)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := callToolRequest("image-resize", "^1", c.params)
			if err != nil {
				t.Fatalf("params %#v refused: %v", c.params, err)
			}
			v, err := wire.DecodeValue(b) // the host's strict decoder: no bin
			if err != nil {
				t.Fatalf("the host cannot read the request: %v", err)
			}
			m := v.(map[string]any)
			if m["tool"] != "image-resize" || m["version"] != "^1" || !reflect.DeepEqual(m["params"], c.want) {
				t.Fatalf("request %#v, want params %#v", m, c.want)
			}
			// And CallTool goes as far as the host (off wasip1: Unavailable).
			_, err = (&Call{}).CallTool("image-resize", c.params)
			if e, ok := err.(*Error); !ok || e.Code != Unavailable {
				t.Fatalf("CallTool: %v, want the host's Unavailable (off wasip1)", err)
			}
		})
	}
	// Params encoding/json refuses are the caller's mistake, named.
	_, err := callToolRequest("x", "", map[string]any{"f": math.Inf(1)})
	if e, ok := err.(*Error); !ok || e.Code != InvalidParams || !strings.Contains(e.Message, "call_tool x") {
		t.Fatalf("%v, want InvalidParams naming the call", err)
	}
}

// A Parameters map in the seed's shorthand (property name → schema), which
// the JS, Python and native SDKs turn into {type: object, properties,
// required}, went to the host as it was: a schema of unknown keywords,
// which accepts any params, so a tool declared with a required integer got
// {} or {"a": "x"}. The Go guest SDK now applies the same rule.
func TestParametersShorthand(t *testing.T) {
	probeTool(t, "probe-short", func() {
		Handle(Tool{Name: "probe-short", Parameters: map[string]any{
			"a": map[string]any{"type": "integer"},
			"b": map[string]any{"type": "string", "default": "x"},
			"c": map[string]any{"type": "string", "optional": true},
		}, Returns: map[string]any{"sum": map[string]any{"type": "integer"}}}, func(c *Call, p any) (any, error) { return p, nil })
	})
	probeTool(t, "probe-whole", func() {
		Handle(Tool{Name: "probe-whole", Parameters: map[string]any{"properties": map[string]any{"a": map[string]any{}}}}, func(c *Call, p any) (any, error) { return p, nil })
	})
	var tools []any
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("registerMessage panicked: %v", r)
			}
		}()
		v, err := wire.DecodeValue(registerMessage())
		if err != nil {
			t.Fatal(err)
		}
		tools = v.(map[string]any)["tools"].([]any)
	}()
	want := map[string][2]any{
		"probe-short": {
			map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "string", "default": "x"}, "c": map[string]any{"type": "string"}}, "required": []any{"a"}},
			map[string]any{"type": "object", "properties": map[string]any{"sum": map[string]any{"type": "integer"}}, "required": []any{"sum"}},
		},
		"probe-whole": {map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{}}}, nil},
	}
	seen := 0
	for _, tl := range tools {
		m := tl.(map[string]any)
		w, ok := want[m["name"].(string)]
		if !ok {
			continue
		}
		seen++
		if !reflect.DeepEqual(m["parameters"], w[0]) || !reflect.DeepEqual(m["returns"], w[1]) {
			t.Errorf("%s: parameters %#v returns %#v\nwant %#v %#v", m["name"], m["parameters"], m["returns"], w[0], w[1])
		}
	}
	if seen != 2 {
		t.Fatalf("found %d of the tools", seen)
	}
	// A shorthand property that is not a schema names the tool and it.
	got := registerPanic(t, "probe-badshort", func() {
		Handle(Tool{Name: "probe-badshort", Parameters: map[string]any{"a": "integer"}}, func(c *Call, p any) (any, error) { return nil, nil })
	})
	if !strings.Contains(got, "probe-badshort") || !strings.Contains(got, `"a"`) {
		t.Fatalf("panic %q, want it to name the tool and the property", got)
	}
}

// The ToolRegister carries deprecated and deprecation (docs/abi.md), and the
// JS and Python SDKs set deprecated; the Go guest SDK's Tool had neither, so
// a Go guest could not mark a tool deprecated.
func TestToolDeprecation(t *testing.T) {
	probeTool(t, "probe-old", func() {
		Handle(Tool{Name: "probe-old", Deprecated: true, Deprecation: &Deprecation{Since: "2.0.0", Message: "use probe-new", Replacement: "probe-new"}},
			func(c *Call, p any) (any, error) { return nil, nil })
	})
	var r abi.ToolRegister
	if err := abi.MsgPack.Unmarshal(registerMessage(), &r); err != nil {
		t.Fatal(err)
	}
	for _, tl := range r.Tools {
		if tl.Name == "probe-old" {
			if !tl.Deprecated || tl.Deprecation == nil || *tl.Deprecation != (abi.Deprecation{Since: "2.0.0", Message: "use probe-new", Replacement: "probe-new"}) {
				t.Fatalf("%+v %+v", tl, tl.Deprecation)
			}
			return
		}
	}
	t.Fatal("probe-old is not registered")
}

// A params struct whose field types disagree with the schema's property
// types (schema "count": integer, field Count string) registered fine and
// failed every call that sent the field, as the caller's InvalidParams
// ("params do not fit … cannot unmarshal number into … of type string"),
// though the host had validated the params against the schema.
// Registration now names the property, its schema type and the field.
func TestTypedFieldsMatchSchema(t *testing.T) {
	schema := func(props string) map[string]any {
		return Schema(`{"type":"object","properties":` + props + `}`)
	}
	for _, c := range []struct {
		name  string
		props string
		reg   func(name string, s map[string]any)
		want  []string
	}{
		{"int-as-string", `{"count":{"type":"integer"}}`, func(n string, s map[string]any) {
			HandleFunc(Tool{Name: n, Parameters: s}, func(c *Call, in struct{ Count string }) (any, error) { return nil, nil })
		}, []string{`"count"`, "integer", "Count", "string"}},
		{"number-as-int", `{"ratio":{"type":"number"}}`, func(n string, s map[string]any) {
			HandleFunc(Tool{Name: n, Parameters: s}, func(c *Call, in struct {
				Ratio int `json:"ratio"`
			}) (any, error) {
				return nil, nil
			})
		}, []string{`"ratio"`, "number", "Ratio", "int"}},
		{"array-as-string", `{"tags":{"type":"array"}}`, func(n string, s map[string]any) {
			HandleFunc(Tool{Name: n, Parameters: s}, func(c *Call, in *struct{ Tags string }) (any, error) { return nil, nil })
		}, []string{`"tags"`, "array", "Tags"}},
		{"object-as-bool", `{"opts":{"type":"object"}}`, func(n string, s map[string]any) {
			HandleFunc(Tool{Name: n, Parameters: s}, func(c *Call, in struct{ Opts bool }) (any, error) { return nil, nil })
		}, []string{`"opts"`, "object", "Opts", "bool"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			name := "probe-" + c.name
			got := registerPanic(t, name, func() { c.reg(name, schema(c.props)) })
			if !strings.Contains(got, name) {
				t.Fatalf("registration panicked with %q, want a panic naming %s and %q", got, name, c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Fatalf("registration panicked with %q, want it to name %q", got, w)
				}
			}
		})
	}
	// What decodes registers: integers into any number type, strings into
	// []byte (base64) and TextUnmarshalers, `,string` fields, arrays into
	// slices and arrays, objects into maps, structs and interfaces, union
	// types and untyped properties into anything.
	type inner struct{ X int }
	probeTool(t, "probe-fields-ok", func() {
		HandleFunc(Tool{Name: "probe-fields-ok", Parameters: schema(`{"i":{"type":"integer"},"f":{"type":"integer"},"n":{"type":"number"},
			"b":{"type":"string"},"s":{"type":"string"},"a":{"type":"array"},"arr":{"type":"array","minItems":2,"maxItems":2},"o":{"type":"object"},"m":{"type":"object"},
			"any":{"type":"object"},"u":{"type":["string","integer"]},"free":{},"ptr":{"type":"integer"},"flag":{"type":"boolean"}}`)},
			func(c *Call, in struct {
				I    uint8
				F    float32
				N    float64
				B    []byte
				S    int `json:"s,string"`
				A    []string
				Arr  [2]int
				O    inner
				M    map[string]int
				Any  any
				U    string
				Free chan int `json:"-"`
				Ptr  *int64
				Flag bool
			}) (any, error) {
				return nil, nil
			})
	})
}

// aios.Register called a second time (a guest of several files, each with
// an init) replaced the first description silently: the id and the
// capabilities asked for first were lost, and the tool's host calls failed
// with CapabilityDenied far from the cause. The Python SDK refuses a
// second provider(...) at load; the Go SDK now panics, naming both ids.
func TestRegisterTwice(t *testing.T) {
	register()
	before := reg.provider
	defer func() { reg.provider = before }()
	var got any
	func() {
		defer func() { got = recover() }()
		Register(Provider{ID: "org.test.other", Capabilities: []string{"ReadSpace(x)"}})
	}()
	s, _ := got.(string)
	if !strings.Contains(s, "aios.Register") || !strings.Contains(s, "org.test.sdk") || !strings.Contains(s, "org.test.other") {
		t.Fatalf("recovered %v, want a panic naming both descriptions", got)
	}
	if reg.provider.ID != "org.test.sdk" {
		t.Fatalf("the first description was replaced: %+v", reg.provider)
	}
}

// A whole schema without "type" made of keywords whose values are not
// schemas ({"enum": [...]}, {"anyOf": [...]}, {"$ref": "..."}) is valid
// JSON Schema, which a Go guest could send before the shorthand rule: it
// must still register as given, not be read as a malformed shorthand.
func TestTypelessWholeSchemaKept(t *testing.T) {
	for i, sch := range []map[string]any{
		{"enum": []any{"a", "b"}},
		{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}},
		{"$ref": "#/$defs/x", "$defs": map[string]any{"x": map[string]any{"type": "string"}}},
	} {
		if got := shorthand("t", "Returns", sch); !reflect.DeepEqual(got, sch) {
			t.Errorf("%d: %#v became %#v", i, sch, got)
		}
	}
}
