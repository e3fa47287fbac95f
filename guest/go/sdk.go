package aios

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	schemashort "github.com/aios-host/aios-host/guest/go/shorthand"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/aios-host/aios-host/guest/go/wire"
	"github.com/aios-host/aios-host/internal/panicstack"
)

// ABIVersion is the guest ABI version this SDK implements.
const ABIVersion = 1

// Error codes (abi.ErrorCode values).
const (
	InvalidParams    = "InvalidParams"
	NotFound         = "NotFound"
	CapabilityDenied = "CapabilityDenied"
	Timeout          = "Timeout"
	ProviderError    = "ProviderError"
	ProviderCrashed  = "ProviderCrashed"
	Unavailable      = "Unavailable"
	Internal         = "Internal"
	InvalidRequest   = "InvalidRequest"
	DepthExceeded    = "DepthExceeded"
	TooLarge         = "TooLarge"
	InvalidResult    = "InvalidResult"
	RateLimited      = "RateLimited"
	Conflict         = "Conflict"
	Cancelled        = "Cancelled"
)

// Error is a ToolError: returned by a handler, or wrapped in the error it
// returns (fmt.Errorf("fetching: %w", err)), it reaches the caller with its
// code and data (an empty Code is sent as ProviderError, saying so);
// returned by a host call it carries the host's code.
type Error struct {
	Code    string
	Message string
	Data    any
}

func (e *Error) Error() string {
	if e == nil {
		return "<nil *aios.Error>"
	}
	return e.Code + ": " + e.Message
}

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Provider describes the guest (ToolRegister.provider).
type Provider struct {
	ID           string // reverse-domain, e.g. org.example.tools
	Name         string
	Version      string
	Description  string
	Capabilities []string // e.g. "ReadSpace(*)", "CallTool(analyze-*)"
}

// Tool describes one tool (ToolRegister.tools[i]). Parameters and Returns
// are JSON Schema documents: a map[string]any, or Schema(`{...}`).
type Tool struct {
	Name               string
	Description        string
	Parameters         map[string]any
	Returns            map[string]any
	CapabilityRequired []string
	Version            string
	Tags               []string
	Examples           []string
	Idempotent         bool
	LatencyClass       string
	PermissionLevel    string
	MCPExportable      bool
	Deprecated         bool
	Deprecation        *Deprecation // why, since when, and what to use instead
}

// Deprecation says why a tool is deprecated, since which version, and what
// to use instead (ToolRegister.tools[i].deprecation).
type Deprecation struct {
	Since       string
	Message     string
	Replacement string
}

// Schema parses a JSON Schema literal; it panics on malformed JSON, which
// surfaces when the module is loaded.
func Schema(js string) map[string]any {
	v, err := wire.FromJSON([]byte(js))
	if err != nil {
		panic(fmt.Sprintf("aios.Schema: %v in %s", err, js))
	}
	m, ok := v.(map[string]any)
	if !ok {
		panic("aios.Schema: a schema must be a JSON object: " + js)
	}
	return m
}

// Call is the call being served, with the host services it may use. It is
// valid only until the handler returns (the SDK reuses it).
type Call struct {
	ID       string
	Tool     string
	Caller   string
	ParentID string
	Version  string
	Depth    int
	// Params is the canonical generic value (nil, bool, int64, uint64
	// above the int64 range, float64, string, []any, map[string]any).
	Params any
}

// Handler serves a tool on generic values.
type Handler func(c *Call, params any) (any, error)

// RawHandler serves a tool on MessagePack bytes: params is the encoded
// params value (valid only during the call) and the handler appends the
// encoded result value to out and returns it. No generic values are built,
// which in a wasm guest (where every allocation is costly) is the fastest
// form; package wire has the helpers (MapField, Append*). The SDK makes no
// allocation for such a call: c.ID, c.Caller, c.ParentID and c.Version
// then view the call's message and, like params, are valid only during the
// call (keep a copy with strings.Clone).
type RawHandler func(c *Call, params []byte, out []byte) ([]byte, error)

type handler struct {
	name    string
	version string // as registered ("" is the host's default, 1.0.0)
	fn      Handler
	raw     RawHandler
	typed   bool       // HandleFunc's: its result goes by encoding/json's rules
	others  []*handler // the name's other versions, on its first one's (reg.handlers's)
}

// defaultVersion is the version the host gives a tool that declares none
// (registry.DefaultVersion), which it then sends in the ToolCall.
const defaultVersion = "1.0.0"

// sameVersion reports whether a registered version a is version b, no
// version being the host's default.
func sameVersion(a, b string) bool {
	return a == b || a == "" && b == defaultVersion || a == defaultVersion && b == ""
}

// forVersion is the handler of h's name that serves version v (the exact
// version the host resolved, in the ToolCall), or nil. With one version of
// the name registered the version is not compared; with several and none
// sent, the last registered serves, as a native provider's.
func (h *handler) forVersion(v []byte) *handler {
	if len(h.others) == 0 {
		return h
	}
	var s []byte
	if len(v) > 0 {
		s, _ = wire.StringBytes(v)
	}
	if len(s) == 0 {
		return h.others[len(h.others)-1]
	}
	if sameVersion(h.version, string(s)) {
		return h
	}
	for _, o := range h.others {
		if sameVersion(o.version, string(s)) {
			return o
		}
	}
	return nil
}

// versions lists the versions of h's name, for a NotFound.
func (h *handler) versions() string {
	vs := make([]string, 0, 1+len(h.others))
	for _, x := range append([]*handler{h}, h.others...) {
		v := x.version
		if v == "" {
			v = defaultVersion
		}
		vs = append(vs, v)
	}
	return strings.Join(vs, ", ")
}

type registry struct {
	provider   Provider
	registered bool // Register was called
	tools      []Tool
	handlers   map[string]*handler
	out        []byte // the result buffer, reused; valid until the next call
	call       Call   // the call being served, reused
	it         wire.MapIter
	strs       strArena // the call's id, caller, parent id and version
}

// strArena makes the short strings of each call (id, caller, ...) for
// generic and typed handlers without an allocation each: they are carved
// from a chunk that is never written again once handed out, so they stay
// valid and immutable as long as a handler keeps them (keeping one keeps its
// chunk). In a wasm guest every allocation is costly, and more so the
// garbage collections they bring: two or three string allocations per call
// made the echo call 20-50 % slower (raw handlers allocate nothing: see
// RawHandler).
type strArena struct{ buf []byte }

const (
	arenaChunk = 4096
	arenaMax   = 256 // longer strings are allocated on their own
)

func (a *strArena) str(v []byte) string {
	if len(v) == 0 { // absent
		return ""
	}
	b, err := wire.StringBytes(v)
	switch {
	case err != nil || len(b) == 0:
		return ""
	case len(b) > arenaMax:
		return string(b)
	}
	if a == nil { // a view for a raw handler, valid during the call
		return unsafe.String(&b[0], len(b))
	}
	if cap(a.buf)-len(a.buf) < len(b) {
		a.buf = make([]byte, 0, arenaChunk)
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[start], len(b))
}

var reg = registry{handlers: map[string]*handler{}}

// Register sets the provider description, once: a second call panics (in
// the init that makes it, which the host quotes in its load error) rather
// than dropping the first one's id and capabilities, as the Python SDK
// refuses a second provider(...).
func Register(p Provider) {
	if reg.registered {
		panic(fmt.Sprintf("aios.Register called twice (provider %q, then %q): describe the provider in one call", reg.provider.ID, p.ID))
	}
	reg.registered = true
	reg.provider = p
}

// Handle registers a tool served on generic values.
func Handle(t Tool, h Handler) { add(t, &handler{name: t.Name, fn: h}, false) }

// HandleRaw registers a tool served on MessagePack bytes (see RawHandler).
func HandleRaw(t Tool, h RawHandler) { add(t, &handler{name: t.Name, raw: h}, false) }

// add registers t, served by h; expanded says t's schemas have been read
// by schemaValue already (HandleFunc's, which checks its types against them).
// A name may be registered at several versions (docs/abi.md: a name@version
// is unique in the module), each call served by the version it names; a
// second registration of a name without versions panicked, "tool a
// registered twice", though the host loads such a module.
func add(t Tool, h *handler, expanded bool) {
	if err := validToolName(t.Name); err != nil {
		// Refused here, where the guest's stack names the line that
		// registers it; the host named only the .wasm file.
		panic("aios: " + err.Error())
	}
	if t.Version != "" && !strictSemver(t.Version) {
		// The registry refused the whole module at load, naming the
		// .wasm file; the JS and Python SDKs refuse it where declared.
		panic(fmt.Sprintf("aios: tool %s: version %q is not a strict SemVer version (want MAJOR.MINOR.PATCH such as 1.2.0, with an optional -pre-release and +build)", t.Name, t.Version))
	}
	h.version = t.Version
	first := reg.handlers[t.Name]
	if first != nil {
		for _, o := range append([]*handler{first}, first.others...) {
			if sameVersion(o.version, t.Version) {
				v, why := t.Version, ""
				if v == "" || o.version == "" {
					v, why = defaultVersion, " (no version is "+defaultVersion+", the host's default)"
				}
				panic("aios: tool " + t.Name + "@" + v + " registered twice" + why)
			}
		}
	}
	if !expanded {
		t.Parameters = schemaValue(t.Name, "Parameters", t.Parameters)
		t.Returns = schemaValue(t.Name, "Returns", t.Returns)
	}
	reg.tools = append(reg.tools, t)
	if first != nil {
		first.others = append(first.others, h)
	} else {
		reg.handlers[t.Name] = h
	}
}

// HandleFunc registers a typed tool: params are decoded into In with
// encoding/json rules (field tags `json:"..."`), the result Out is encoded
// the same way. In and Out may be any or map[string]any to skip conversion:
// params are then passed as they came, and a result holding generic values
// only is sent as it is (the Go values inside one, a []Item or a
// time.Time, are converted with encoding/json rules).
//
// HandleFunc panics (in the init that calls it, which the host reports in
// its load error) when In or Out holds a type encoding/json cannot handle
// (a channel, a function, a complex number), when In is a struct with no
// field for a property t.Parameters requires or a property's schema type
// cannot decode into its field (nested objects and arrays' items too), or
// when Out is a struct that encoding/json writes without a property
// t.Returns requires (at any depth) or leaves it out when empty, or writes
// a property, an array's items or a map's members as a JSON type other
// than t.Returns gives them.
func HandleFunc[In, Out any](t Tool, fn func(c *Call, in In) (Out, error)) {
	t.Parameters = schemaValue(t.Name, "Parameters", t.Parameters)
	t.Returns = schemaValue(t.Name, "Returns", t.Returns)
	checkTyped(t, reflect.TypeFor[In](), reflect.TypeFor[Out]())
	add(t, &handler{name: t.Name, typed: true, fn: func(c *Call, params any) (any, error) {
		var in In
		if p, ok := params.(In); ok {
			in = p
		} else {
			if err := wire.DecodeTyped(params, &in); err != nil {
				return nil, Errorf(InvalidParams, "%s: params do not fit %T: %v", c.Tool, in, err)
			}
		}
		out, err := fn(c, in)
		if err != nil {
			return nil, err
		}
		return toGeneric(c.Tool, out)
	}}, true)
}

// toGeneric turns a typed handler's result into a generic value with
// encoding/json rules; a result encoding/json refuses (NaN, a channel) is
// the tool's InvalidResult, as a generic handler's. A map[string]any or
// []any is passed on as it is: run converts the Go values inside one
// (jsonValue) only if it must.
func toGeneric(tool string, v any) (any, error) {
	switch v.(type) {
	case nil, bool, int64, uint64, float64, string, []any, map[string]any:
		return v, nil
	}
	g, err := jsonValue(v, 0)
	if err != nil {
		return nil, Errorf(InvalidResult, "%s: the result is not a JSON value: %v", tool, err)
	}
	return g, nil
}

// jsonValue is v, a map[string]any or []any, as a canonical generic value:
// each value inside that is not one (a struct, a time.Time, an int32, a
// []byte) converted by encoding/json's rules, the rest kept as it is (a
// float64 from 2^53 up stays a float). v itself is not changed.
func jsonValue(v any, depth int) (any, error) {
	if depth > wire.MaxDepth {
		return nil, fmt.Errorf("value nested deeper than %d levels", wire.MaxDepth)
	}
	switch x := v.(type) {
	case nil, bool, int64, uint64, string:
		return v, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("json: unsupported value: %v", x)
		}
		return v, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			n, err := jsonValue(e, depth+1)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			n, err := jsonValue(e, depth+1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = n
		}
		return out, nil
	}
	if n, ok, err := jsonReflect(v, depth); ok {
		return n, err
	}
	return jsonGeneric(v)
}

var textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()

// jsonReflect is jsonValue of a Go map (string or integer keys), slice,
// array, pointer or named number, bool or string that writes no JSON of
// its own (ok false for another): walked, not written whole by
// encoding/json, which wrote a whole float from 2^53 up as the integer of
// its shortest digits (2^60 as 1152921504606847000, another number), so
// that a typed result of []float64 or map[int]float64 arrived changed,
// where a native tool's keeps it (found by p176). Keys are written as
// encoding/json writes them (an integer in decimal).
func jsonReflect(v any, depth int) (any, bool, error) {
	if _, ok := v.(json.Marshaler); ok {
		return nil, false, nil
	}
	if _, ok := v.(encoding.TextMarshaler); ok {
		return nil, false, nil
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Bool:
		return rv.Bool(), true, nil
	case reflect.String:
		return rv.String(), true, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := rv.Uint()
		if u > math.MaxInt64 {
			return u, true, nil
		}
		return int64(u), true, nil
	case reflect.Float64:
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, true, fmt.Errorf("json: unsupported value: %v", f)
		}
		return f, true, nil
	case reflect.Pointer:
		if rv.IsNil() {
			return nil, true, nil
		}
		n, err := jsonValue(rv.Elem().Interface(), depth)
		return n, true, err
	case reflect.Map:
		kt := rv.Type().Key()
		if kt.Implements(textMarshalerType) || reflect.PointerTo(kt).Implements(textMarshalerType) {
			return nil, false, nil
		}
		switch kt.Kind() {
		case reflect.String, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		default:
			return nil, false, nil // refused by encoding/json, in its words
		}
		if rv.IsNil() {
			return nil, true, nil
		}
		if depth+1 > wire.MaxDepth {
			return nil, true, fmt.Errorf("value nested deeper than %d levels", wire.MaxDepth)
		}
		out := make(map[string]any, rv.Len())
		for it := rv.MapRange(); it.Next(); {
			var k string
			switch key := it.Key(); key.Kind() {
			case reflect.String:
				k = key.String()
			case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				k = strconv.FormatInt(key.Int(), 10)
			default:
				k = strconv.FormatUint(key.Uint(), 10)
			}
			n, err := jsonValue(it.Value().Interface(), depth+1)
			if err != nil {
				return nil, true, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = n
		}
		return out, true, nil
	case reflect.Slice, reflect.Array:
		if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
			return nil, false, nil // bytes: base64, as encoding/json writes them
		}
		if rv.Kind() == reflect.Slice && rv.IsNil() {
			return nil, true, nil
		}
		if depth+1 > wire.MaxDepth {
			return nil, true, fmt.Errorf("value nested deeper than %d levels", wire.MaxDepth)
		}
		out := make([]any, rv.Len())
		for i := range out {
			n, err := jsonValue(rv.Index(i).Interface(), depth+1)
			if err != nil {
				return nil, true, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = n
		}
		return out, true, nil
	}
	return nil, false, nil
}

// jsonGeneric is v as encoding/json writes it, read back as a canonical
// generic value.
func jsonGeneric(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	g, err := wire.FromJSON(b)
	if err != nil {
		return nil, err
	}
	if bytes.ContainsAny(b, "0123456789") && hasFloat(g, 0) {
		// A Go integer past int64 and uint64 (a *big.Int, alone or in a
		// struct) is written as its digits, which read as the nearest
		// float, another number: refused, as the host refuses a native
		// tool's and the JS and Python SDKs theirs.
		var raw any
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if dec.Decode(&raw) == nil {
			if at, lit, ok := wire.WideInteger(raw); ok {
				// "name.inner: ", "[0]: ", or "" for the value itself.
				if at = strings.TrimPrefix(at, "."); at != "" {
					at += ": "
				}
				if len(lit) > 40 {
					lit = lit[:40] + "… (" + strconv.Itoa(len(lit)) + " digits)"
				}
				return nil, fmt.Errorf("%sthe integer %s is outside the int64 and uint64 ranges, which the host's integers hold (read as a JSON number it would become the nearest float, another number); send it as a string (x.String())", at, lit)
			}
		}
	}
	return g, nil
}

// hasFloat reports whether the generic value v holds a float64.
func hasFloat(v any, depth int) bool {
	switch x := v.(type) {
	case float64:
		return true
	case []any:
		for _, e := range x {
			if depth < wire.MaxDepth && hasFloat(e, depth+1) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if depth < wire.MaxDepth && hasFloat(e, depth+1) {
				return true
			}
		}
	}
	return false
}

// schemaValue returns a tool's schema as a canonical generic value. A
// schema may be written as a Go literal with typed maps, slices and
// numbers (map[string]map[string]any, []string, float32): encoding/json
// rules turn those into JSON. One that is not JSON at all (a channel, NaN)
// panics here, naming the tool, in the init that registers it (the host
// quotes the panic in its load error).
func schemaValue(tool, field string, s map[string]any) map[string]any {
	if s == nil {
		if field == "Parameters" {
			// No parameters: an object, as the JS and Python SDKs
			// and native.JSONSchema(nil) give (none accepted any params).
			return map[string]any{"type": "object"}
		}
		return nil
	}
	if !canonical(s, 0) {
		// Not only values the wire cannot write: a []string "required"
		// it can, but the checks of HandleFunc read []any only.
		g, err := jsonGeneric(s)
		if err != nil {
			panic(fmt.Sprintf("aios: tool %s: its %s schema is not JSON: %v", tool, field, err))
		}
		s = g.(map[string]any)
	}
	return shorthand(tool, field, s)
}

// canonical reports whether v is a canonical generic value all the way
// down (nil, bool, int64, uint64, float64 but NaN and infinities, string,
// []any, map[string]any).
func canonical(v any, depth int) bool {
	if depth > wire.MaxDepth {
		return false
	}
	switch x := v.(type) {
	case nil, bool, int64, uint64, string:
		return true
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0)
	case []any:
		for _, e := range x {
			if !canonical(e, depth+1) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range x {
			if !canonical(e, depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// shorthand applies the rule every AIOS SDK applies to a schema
// (package shorthand: a whole schema as given, the seed's shorthand
// expanded); a shorthand property that is not a schema panics, naming it.
func shorthand(tool, field string, s map[string]any) map[string]any {
	expand := schemashort.Expand
	if field == "Parameters" {
		expand = schemashort.Params // params are an object
	}
	out, err := expand(s)
	var mixed *schemashort.MixedError
	if errors.As(err, &mixed) {
		panic(fmt.Sprintf("aios: tool %s: its %s schema %v", tool, field, err))
	}
	if err != nil {
		panic(fmt.Sprintf("aios: tool %s: its %s schema is read as a map of property schemas (it has no string \"type\" or \"$schema\" and no \"properties\"), but %v", tool, field, err))
	}
	return out
}

// registerMessage encodes the ToolRegister.
func registerMessage() []byte {
	b := wire.AppendMapHeader(nil, 3)
	b = wire.AppendInt(wire.AppendString(b, "format"), 1)
	p := reg.provider
	pm := map[string]any{"id": p.ID}
	setStr(pm, "name", p.Name)
	setStr(pm, "version", p.Version)
	setStr(pm, "description", p.Description)
	if len(p.Capabilities) > 0 {
		pm["capabilities"] = strs(p.Capabilities)
	}
	b, _ = wire.AppendValue(wire.AppendString(b, "provider"), pm)
	tools := make([]any, 0, len(reg.tools))
	sorted := append([]Tool(nil), reg.tools...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	for _, t := range sorted {
		m := map[string]any{"name": t.Name}
		setStr(m, "description", t.Description)
		setStr(m, "version", t.Version)
		setStr(m, "latency_class", t.LatencyClass)
		setStr(m, "permission_level", t.PermissionLevel)
		if t.Parameters != nil {
			m["parameters"] = t.Parameters
		}
		if t.Returns != nil {
			m["returns"] = t.Returns
		}
		for k, v := range map[string][]string{"capability_required": t.CapabilityRequired, "tags": t.Tags, "examples": t.Examples} {
			if len(v) > 0 {
				m[k] = strs(v)
			}
		}
		if t.Idempotent {
			m["idempotent"] = true
		}
		if t.MCPExportable {
			m["mcp_exportable"] = true
		}
		if t.Deprecated {
			m["deprecated"] = true
		}
		if d := t.Deprecation; d != nil {
			dm := map[string]any{}
			setStr(dm, "since", d.Since)
			setStr(dm, "message", d.Message)
			setStr(dm, "replacement", d.Replacement)
			m["deprecation"] = dm
		}
		tools = append(tools, m)
	}
	b, err := wire.AppendValue(wire.AppendString(b, "tools"), tools)
	if err != nil {
		panic("aios: a tool schema is not a JSON value: " + err.Error())
	}
	return b
}

func setStr(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

func strs(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// serve decodes one encoded ToolCall, runs its handler and encodes the
// ToolResult into reg.out. The envelope is walked without decoding it; only
// a generic handler's params are decoded.
func serve(msg []byte) []byte {
	if len(msg) == 0 {
		return wire.AppendError(reg.out[:0], InvalidRequest, "the call buffer was not allocated with aios_alloc", nil)
	}
	c := &reg.call
	*c = Call{}
	var h *handler
	var params, id, caller, parentID, version []byte
	it := &reg.it
	it.Reset(msg)
	for it.Next() {
		v := it.Value()
		switch string(it.Key()) {
		case "tool":
			var name []byte
			if len(v) > 0 && v[0] >= 0xa0 && v[0] <= 0xbf {
				name = v[1:]
			} else if s, err := wire.ReadString(v); err == nil {
				name = []byte(s)
			}
			h = reg.handlers[string(name)]
			if h == nil {
				return wire.AppendError(reg.out[:0], NotFound, "this guest has no tool "+string(name), nil)
			}
		case "params":
			params = v
		case "id":
			id = v
		case "caller":
			caller = v
		case "parent_id":
			parentID = v
		case "version":
			version = v
		case "depth":
			if d, err := wire.DecodeValue(v); err == nil {
				if n, ok := d.(int64); ok {
					c.Depth = int(n)
				}
			}
		}
	}
	if err := it.Err(); err != nil {
		return wire.AppendError(reg.out[:0], InvalidRequest, "the guest could not decode the call: "+err.Error(), nil)
	}
	if h == nil {
		return wire.AppendError(reg.out[:0], InvalidRequest, "the call names no tool", nil)
	}
	if v := h.forVersion(version); v != nil {
		h = v
	} else {
		vs, _ := wire.StringBytes(version)
		return wire.AppendError(reg.out[:0], NotFound, fmt.Sprintf("this guest has no tool %s version %q (it serves %s)", h.name, vs, h.versions()), nil)
	}
	c.Tool = h.name
	strs := &reg.strs
	if h.raw != nil {
		strs = nil // views of msg (RawHandler)
	}
	c.ID, c.Caller, c.ParentID, c.Version = strs.str(id), strs.str(caller), strs.str(parentID), strs.str(version)
	if params == nil {
		params = []byte{0xc0}
	}
	out, err := run(h, c, params)
	if err != nil {
		return errorResult(c.Tool, err)
	}
	reg.out = out
	return out
}

// errorResult encodes a handler's error: the code and data of the *Error
// in its chain (errors.As), with the handler's words around that *Error's
// message when it is wrapped; any other error is a ProviderError with its
// message. A typed nil *Error (`var err
// *aios.Error; return v, err`: an error that is not nil) and an error whose
// Error method panics are ProviderErrors saying so: either used to panic
// here, outside the handler's recover, and trap the guest. Data that is
// not a JSON value is converted with encoding/json rules ([]byte becomes
// base64) or, if that fails, dropped, saying so in the message.
func errorResult(tool string, err error) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("%s: the handler's error (a %T): its Error method panicked: %v", tool, err, r)
			if v := reflect.ValueOf(err); v.Kind() == reflect.Pointer && v.IsNil() {
				msg += fmt.Sprintf(" (a nil %T returned as the error is not a nil error: return a literal nil, or declare the variable as error)", err)
			}
			out = wire.AppendError(reg.out[:0], ProviderError, strings.ToValidUTF8(msg, "\uFFFD"), nil)
		}
	}()
	if e, ok := err.(*Error); ok && e == nil {
		return wire.AppendError(reg.out[:0], ProviderError, tool+": the handler returned a nil *aios.Error as its error, which is not a nil error (return a literal nil, or declare the variable as error)", nil)
	}
	var e *Error
	if !errors.As(err, &e) || e == nil {
		return wire.AppendError(reg.out[:0], ProviderError, err.Error(), nil)
	}
	data, msg, code := e.Data, e.Message, e.Code
	if error(e) != err {
		// Wrapped (fmt.Errorf("…: %w", err)): the code and data of the
		// *Error inside, as a native tool's wrapped *abi.ToolError, and
		// the handler's words around its message.
		full := err.Error()
		if i := strings.LastIndex(full, e.Error()); i >= 0 {
			msg = full[:i] + e.Message + full[i+len(e.Error()):]
		} else {
			msg = full
		}
	}
	if code == "" {
		// {"code": ""} is a malformed ToolResult to the host, which
		// would discard the instance and lose the message.
		code = ProviderError
		msg += " (the handler's *aios.Error has an empty Code: set it to one of the codes aios declares, such as aios.NotFound)"
	}
	if data != nil {
		if _, jerr := wire.AppendJSONValue(nil, data); jerr != nil {
			var gerr error
			// nil when encoding/json refuses it too: said in the message,
			// as the JS and Python SDKs say it (it was dropped silently).
			if data, gerr = dataGeneric(data); gerr != nil {
				if errors.As(jerr, new(*wire.PathError)) && !errors.Is(jerr, wire.ErrUnsupported) {
					gerr = jerr // a generic value's NaN, named by its path (encoding/json names none)
				}
				msg += " (its data was left out: " + gerr.Error() + ")"
			}
		}
	}
	return wire.AppendError(reg.out[:0], code, msg, data)
}

// dataGeneric is jsonValue of an error's data (its generic values kept,
// the Go values in it converted by encoding/json's rules), a panic in a Go
// value's own MarshalJSON or MarshalText an error: errorResult's recover
// took it for the error's Error method panicking, its code and message
// lost.
func dataGeneric(v any) (g any, err error) {
	defer func() {
		if r := recover(); r != nil {
			g, err = nil, fmt.Errorf("encoding it as JSON panicked: %v", r)
		}
	}()
	return jsonValue(v, 0)
}

// run calls h and encodes its result, turning a panic into ProviderCrashed
// (the host then discards this instance).
func run(h *handler, c *Call, params []byte) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			// Text that is not UTF-8 would have the host drop the
			// data, the stack with it.
			msg := strings.ToValidUTF8(fmt.Sprint(r), "\uFFFD")
			err = &Error{Code: ProviderCrashed, Message: c.Tool + " panicked: " + msg, Data: map[string]any{"panic": msg, "stack": panicStack()}}
		}
	}()
	out = wire.AppendString(wire.AppendMapHeader(reg.out[:0], 1), "value")
	if h.raw != nil {
		mark := len(out)
		res, err := h.raw(c, params, out)
		if err == nil && (len(res) <= mark || string(res[:mark]) != string(out[:mark])) {
			// nil, out as given, or a value not appended to out: the
			// host got no ToolResult ("aios_call result is empty",
			// ProviderCrashed) or one cut after "value".
			return nil, Errorf(InvalidResult, "%s: the RawHandler's result holds no value appended to the out it was given (it returned %d bytes, out had %d): append the encoded result value to out and return that slice", c.Tool, len(res), mark)
		}
		return res, err
	}
	if c.Params, err = wire.DecodeValue(params); err != nil {
		return nil, Errorf(InvalidParams, "%s: undecodable params: %v", c.Tool, err)
	}
	res, err := h.fn(c, c.Params)
	if err != nil {
		return nil, err
	}
	mark := len(out)
	if out, err = wire.AppendJSONValue(out, res); err != nil && h.typed {
		// A typed handler's map[string]any or []any holding Go values
		// (a []Item, a time.Time): encoding/json's rules, as HandleFunc
		// promises and as a native Go tool's result (abi.Normalize).
		var g any
		if g, err = jsonValue(res, 0); err == nil {
			out, err = wire.AppendJSONValue(out[:mark], g)
		}
	}
	if err != nil {
		// As the JS and Python SDKs: InvalidResult naming the path (a
		// []byte written as bin was refused by the host as a malformed
		// ToolResult).
		return nil, Errorf(InvalidResult, "%s: the result is not a JSON value: %v", c.Tool, err)
	}
	return out, nil
}

// sdkPackage is this package's import path, to tell its frames.
const sdkPackage = "github.com/aios-host/aios-host/guest/go"

// panicStack is the stack of a handler's panic as a native Go tool's
// (runtimes/native): the frames from the panicking function up to the
// SDK's, runtime frames left out, at most panicstack.MaxFrames, each as its
// function and file:line, the file named by its package path and base
// name. debug.Stack() gave every caller the guest's build machine's paths
// (its author's home, its GOROOT) and seven frames of the SDK and the
// runtime around the tool's own. Called from run's deferred recover.
func panicStack() string {
	return panicstack.Format(2, func(fn string) (skip, stop bool) { // past panicStack and run's recover
		return strings.HasPrefix(fn, sdkPackage+".HandleFunc["), fn == sdkPackage+".run" // its typed wrapper; the SDK's caller
	})
}

// strictSemver reports whether v is a strict SemVer 2.0.0 version, as the
// registry reads a tool's (MAJOR.MINOR.PATCH, numbers without leading
// zeros that fit 64 bits; a pre-release of dot-separated identifiers, a
// numeric one without leading zeros; build metadata of dot-separated
// identifiers), without regexp, which would grow every guest.
func strictSemver(v string) bool {
	v, build, hasBuild := strings.Cut(v, "+")
	v, pre, hasPre := strings.Cut(v, "-")
	core := strings.Split(v, ".")
	if len(core) != 3 {
		return false
	}
	for _, n := range core {
		if !numericID(n) {
			return false
		}
		if _, err := strconv.ParseUint(n, 10, 64); err != nil {
			return false
		}
	}
	ids := func(s string, pre bool) bool {
		for _, id := range strings.Split(s, ".") {
			if id == "" {
				return false
			}
			digits := true
			for i := 0; i < len(id); i++ {
				c := id[i]
				alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
				if !alnum {
					return false
				}
				digits = digits && c >= '0' && c <= '9'
			}
			if pre && digits && !numericID(id) {
				return false
			}
		}
		return true
	}
	return (!hasPre || ids(pre, true)) && (!hasBuild || ids(build, false))
}

// numericID reports whether s is digits without a leading zero (0 itself
// is one).
func numericID(s string) bool {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// validToolName checks name by the host's rule (abi.ToolNamePattern: 1-128
// characters of A-Z a-z 0-9 _ - ., starting with a letter or digit),
// without regexp, which would grow every guest.
func validToolName(name string) error {
	ok := name != "" && len(name) <= 128
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		ok = alnum || i > 0 && (c == '_' || c == '-' || c == '.')
	}
	if ok {
		return nil
	}
	if len(name) > 140 {
		name = name[:140] + "…"
	}
	return fmt.Errorf("invalid tool name %q: use 1-128 characters from A-Z a-z 0-9 _ - . starting with a letter or digit", name)
}
