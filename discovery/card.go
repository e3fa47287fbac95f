package discovery

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/editdist"
	"github.com/aios-host/aios-host/schema"
	"github.com/aios-host/aios-host/trust"
)

// ProtocolVersion is the AIOS protocol version this host speaks.
const ProtocolVersion = "0.3.0"

// SupportedProtocols is the range of card protocol_version values accepted:
// the 0.3 series (under SemVer, a 0.x minor bump may break, so 0.2 and 0.4
// are refused).
const SupportedProtocols = ">=0.3.0, <0.4.0"

// MaxCardBytes bounds an Adapter Card.
const MaxCardBytes = 1 << 20

// MaxCardSkills bounds a card's skills, counted before they are decoded.
// A skill with an id, a name and a permission level takes about 60 bytes,
// so no card of MaxCardBytes holds more real skills than this; a provider
// may register at most limits.max_tools_per_provider (10 000) anyway.
const MaxCardSkills = 20000

// arrayLen counts the elements of raw, a valid JSON array (0 when raw is
// not an array), without decoding them.
func arrayLen(raw []byte) int {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '[' {
		return 0
	}
	n, depth, inStr, empty := 0, 0, false, true
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		case c == '"':
			inStr = true
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ',' && depth == 1:
			n++
		}
		if depth >= 1 && c != ' ' && c != '\t' && c != '\n' && c != '\r' && !(depth == 1 && (c == '[' || c == ',')) {
			empty = false
		}
	}
	if empty {
		return 0
	}
	return n + 1
}

// Card is a parsed, validated Adapter Card (seed 001 §2.2–2.3) with the
// aios-host additions: "artifact" (the pinned code beside the card) and per
// skill capability_required, version, tags, idempotent, latency_class,
// mcp_exportable, deprecated; requirements.capabilities (the grants the
// adapter asks for).
type Card struct {
	Adapter        AdapterInfo        `json:"adapter"`
	Capabilities   CardCapabilities   `json:"capabilities"`
	Skills         []Skill            `json:"skills"`
	Authentication *Authentication    `json:"authentication,omitempty"`
	Endpoints      *Endpoints         `json:"endpoints,omitempty"`
	Requirements   *Requirements      `json:"requirements,omitempty"`
	Extensions     []string           `json:"extensions,omitempty"`
	Artifact       *trust.ArtifactPin `json:"artifact,omitempty"`
	Signature      *trust.Signature   `json:"signature,omitempty"`
	Extra          map[string]any     `json:"-"` // top-level "x-…" members
	Raw            []byte             `json:"-"` // the bytes parsed (signature input)
}

// AdapterInfo is the card's "adapter" member.
type AdapterInfo struct {
	ID              string `json:"id"`
	Name            string `json:"name"`
	Description     string `json:"description,omitempty"`
	Version         string `json:"version"`
	ProtocolVersion string `json:"protocol_version"`
	Author          string `json:"author,omitempty"`
	Homepage        string `json:"homepage,omitempty"`
	License         string `json:"license,omitempty"`
}

// CardCapabilities are the protocol features an adapter supports.
type CardCapabilities struct {
	Streaming              bool `json:"streaming" yaml:"streaming"`
	BatchOperations        bool `json:"batch_operations" yaml:"batch_operations"`
	AsyncTasks             bool `json:"async_tasks" yaml:"async_tasks"`
	PushNotifications      bool `json:"push_notifications" yaml:"push_notifications"`
	StateTransitionHistory bool `json:"state_transition_history" yaml:"state_transition_history"`
}

// Has reports whether the named capability (as in the card) is true.
func (c CardCapabilities) Has(name string) bool {
	switch name {
	case "streaming":
		return c.Streaming
	case "batch_operations":
		return c.BatchOperations
	case "async_tasks":
		return c.AsyncTasks
	case "push_notifications":
		return c.PushNotifications
	case "state_transition_history":
		return c.StateTransitionHistory
	}
	return false
}

// Skill is one entry of "skills"; it becomes one tool. The yaml tags name
// the same entry under "capabilities" in a tool.aios.yaml.
type Skill struct {
	ID                 string         `json:"id" yaml:"id"`
	Name               string         `json:"name" yaml:"name"`
	Description        string         `json:"description,omitempty" yaml:"description"`
	PermissionLevel    string         `json:"permission_level" yaml:"permission_level"`
	Examples           []string       `json:"examples,omitempty" yaml:"examples"`
	InputSchema        map[string]any `json:"input_schema,omitempty" yaml:"input_schema"`
	OutputSchema       map[string]any `json:"output_schema,omitempty" yaml:"output_schema"`
	CapabilityRequired []string       `json:"capability_required,omitempty" yaml:"capability_required"`
	Version            string         `json:"version,omitempty" yaml:"version"`
	Tags               []string       `json:"tags,omitempty" yaml:"tags"`
	Idempotent         bool           `json:"idempotent,omitempty" yaml:"idempotent"`
	LatencyClass       string         `json:"latency_class,omitempty" yaml:"latency_class"`
	MCPExportable      bool           `json:"mcp_exportable,omitempty" yaml:"mcp_exportable"`
	Deprecated         bool           `json:"deprecated,omitempty" yaml:"deprecated"`
}

// Authentication is the card's "authentication" member.
type Authentication struct {
	Required bool     `json:"required" yaml:"required"`
	Schemes  []string `json:"schemes" yaml:"schemes"`
}

// Endpoints is the card's "endpoints" member.
type Endpoints struct {
	RPC     string `json:"rpc,omitempty" yaml:"rpc"`
	HTTP    string `json:"http,omitempty" yaml:"http"`
	Health  string `json:"health,omitempty" yaml:"health"`
	Metrics string `json:"metrics,omitempty" yaml:"metrics"`
}

// Requirements is the card's "requirements" member.
type Requirements struct {
	Software     *Software    `json:"software,omitempty"`
	Dependencies []Dependency `json:"dependencies,omitempty"`
	// Capabilities are the grants the adapter asks for (aios-host).
	Capabilities []string `json:"capabilities,omitempty"`
}

// Software describes the application an adapter drives.
type Software struct {
	Name       string     `json:"name"`
	MinVersion string     `json:"min_version,omitempty"`
	Detection  *Detection `json:"detection,omitempty"`
}

// Detection says how to tell that the software is installed.
type Detection struct {
	DesktopFile string  `json:"desktop_file,omitempty"`
	Executable  string  `json:"executable,omitempty"`
	DBusService *string `json:"dbus_service"`
}

// Dependency is one of requirements.dependencies.
type Dependency struct {
	Name    string `json:"name" yaml:"name"`
	Version string `json:"version,omitempty" yaml:"version"`
}

var permissionLevels = map[string]bool{abi.PermissionPublic: true, abi.PermissionLow: true,
	abi.PermissionMedium: true, abi.PermissionHigh: true, abi.PermissionCritical: true}

var authSchemes = map[string]bool{"oauth2": true, "api_key": true, "bearer": true, "mtls": true}

// CardError is a validation error naming the card and the field.
type CardError struct {
	Source string // file name or URL
	Line   int    // line in Source where known (a tool.aios.yaml), else 0
	Field  string // JSON path such as skills[2].permission_level
	Msg    string
}

func (e *CardError) Error() string {
	src := e.Source
	if e.Line > 0 {
		src += ":" + strconv.Itoa(e.Line)
	}
	if e.Field == "" {
		return src + ": " + e.Msg
	}
	return src + ": " + e.Field + ": " + e.Msg
}

// ParseCard decodes and validates an Adapter Card. name labels errors.
// Unknown members are refused (a typo must not silently drop a field),
// except top-level members starting with "x-", kept in Extra.
func ParseCard(data []byte, name string) (*Card, error) {
	fail := func(field, format string, args ...any) (*Card, error) {
		return nil, &CardError{Source: name, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	if len(data) > MaxCardBytes {
		return fail("", "card is %d bytes, larger than the limit of %d", len(data), MaxCardBytes)
	}
	if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
		return fail("", "starts with a UTF-8 byte order mark (EF BB BF): save the card without one")
	}
	// A card saved as UTF-16 (Notepad's "Unicode", PowerShell's Out-File)
	// was refused as "invalid character 'ÿ' looking for beginning of
	// value", which does not say the encoding is wrong
	// (TestParseCardUTF16SaysSo). JSON text is UTF-8 (RFC 8259 §8.1).
	if enc := utf16Encoding(data); enc != "" {
		return fail("", "is encoded as %s, not UTF-8: save the card as UTF-8 (without a byte order mark)", enc)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		// Where the text stops being JSON: a card cut short (saved half
		// written, or being written) said only "unexpected end of JSON
		// input" (TestTruncatedCardNamesWhere).
		if se, ok := errors.AsType[*json.SyntaxError](err); ok {
			// (Offset counts the byte found wrong: it is at Offset-1.)
			line, col := lineCol(data, max(int(se.Offset)-1, 0))
			if len(bytes.TrimSpace(data)) == 0 {
				return fail("", "the card file is empty")
			}
			if se.Offset >= int64(len(data)) {
				line, col = lineCol(data, len(data))
				return fail("", "line %d, column %d: the card ends before its JSON does (cut short, or still being written?): %v", line, col, err)
			}
			// JSON nested past encoding/json's 10000 levels is JSON, too
			// deep for a card: it was called "not JSON: invalid character
			// '{' exceeded max depth" (TestDeepCardSaysHowDeep). Said as
			// of a card nested past I-JSON's 256 levels, where they end.
			if strings.HasSuffix(se.Error(), "exceeded max depth") {
				if ie, ok := errors.AsType[*trust.SyntaxError](trust.CheckIJSON(data)); ok {
					line, col := lineCol(data, ie.Offset)
					return fail("", "line %d, column %d: %s (a card must be I-JSON, RFC 7493)", line, col, ie.Msg)
				}
			}
			return fail("", "line %d, column %d: not JSON: %v", line, col, err)
		}
		return fail("", "not a JSON object: %v", err)
	}
	// encoding/json takes the last of two members of one name and turns
	// bytes that are not UTF-8 into U+FFFD: a card naming "id" twice
	// would load under the second without a word. A card must be I-JSON
	// (RFC 7493) to be signed and verified; every card is held to it.
	if err := trust.CheckIJSON(data); err != nil {
		var se *trust.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se.Offset)
			return fail("", "line %d, column %d: %s (a card must be I-JSON, RFC 7493)", line, col, se.Msg)
		}
		return fail("", "not I-JSON (RFC 7493): %v", err)
	}
	if top == nil {
		return fail("", "not a JSON object")
	}
	c := &Card{Raw: data}
	strictKeys := map[string]bool{}
	for k := range top {
		switch k {
		case "adapter", "capabilities", "skills", "authentication", "endpoints", "requirements", "extensions", "artifact", "signature":
			strictKeys[k] = true
		default:
			if !strings.HasPrefix(k, "x-") {
				return fail(k, "unknown member (extensions go under a top-level \"x-\" name)")
			}
			var v any
			if err := abi.UnmarshalJSONValue(top[k], &v); err != nil {
				return fail(k, "%v", err)
			}
			if c.Extra == nil {
				c.Extra = map[string]any{}
			}
			c.Extra[k] = v
		}
	}
	for _, req := range []string{"adapter", "capabilities", "skills"} {
		if !strictKeys[req] || string(bytes.TrimSpace(top[req])) == "null" {
			return fail(req, "required member is missing")
		}
	}
	// Each skill decodes to a struct of about 330 bytes: 1 MiB of
	// [{},{},…] would be 230 MiB before validation refuses it.
	if n := arrayLen(top["skills"]); n > MaxCardSkills {
		return fail("skills", "%d skills, more than the limit of %d", n, MaxCardSkills)
	}
	for k := range strictKeys {
		if field, want, err := caseVariant(top[k], cardField(k), k); err != nil {
			return fail(k, "%v", err)
		} else if field != "" {
			return fail(field, "unknown member (member names are case-sensitive: want %q)", want)
		}
		if field, err := decodeStrict(top[k], c, k); err != nil {
			return fail(field, "%v", err)
		}
	}
	if err := c.validate(); err != nil {
		var ce *CardError
		if errors.As(err, &ce) {
			ce.Source = name
		}
		return nil, err
	}
	return c, nil
}

// cardField returns the Go type of the Card field of the top-level
// member name.
func cardField(name string) reflect.Type {
	t := reflect.TypeFor[Card]()
	for i := 0; i < t.NumField(); i++ {
		if jsonName(t.Field(i)) == name {
			return t.Field(i).Type
		}
	}
	return nil
}

// jsonName is the member name encoding/json gives the struct field f ("-"
// when it has none).
func jsonName(f reflect.StructField) string {
	if !f.IsExported() {
		return "-"
	}
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}

// caseVariant finds, in raw decoded as t, a member name that names a
// field only when case is ignored ("Permission_level"): encoding/json
// would take it for the field, and a card holding both spellings would be
// read as whichever comes last. The signature (JCS) does not see member
// order, so such a card must be refused, or its holder could choose what
// the host reads by reordering it. It returns the JSON path of the member
// (path is raw's) and the name it differs from in case; "" when there is
// none. Members of a map (schemas, artifact.files) are free.
func caseVariant(raw json.RawMessage, t reflect.Type, path string) (field, want string, err error) {
	if t == nil {
		return "", "", nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return "", "", err
	}
	field, want = caseVariantIn(v, t, path)
	return field, want, nil
}

func caseVariantIn(v any, t reflect.Type, path string) (field, want string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return "", "" // a type mismatch, which the decoder reports
		}
		fields := make(map[string]reflect.Type, t.NumField())
		for i := 0; i < t.NumField(); i++ {
			if n := jsonName(t.Field(i)); n != "-" {
				fields[n] = t.Field(i).Type
			}
		}
		names := make([]string, 0, len(obj))
		for k := range obj {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			ft, ok := fields[k]
			if !ok {
				for n := range fields {
					if strings.EqualFold(n, k) {
						return path + "." + k, n
					}
				}
				continue // unknown: the decoder refuses it
			}
			if f, w := caseVariantIn(obj[k], ft, path+"."+k); f != "" {
				return f, w
			}
		}
	case reflect.Slice:
		arr, _ := v.([]any)
		for i, e := range arr {
			if f, w := caseVariantIn(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); f != "" {
				return f, w
			}
		}
	}
	return "", ""
}

// decodeStrict decodes the top-level member into c. On failure it returns
// the JSON path of the value at fault (skills[1](b).examples) and an error
// in JSON's terms, not Go's.
func decodeStrict(raw json.RawMessage, c *Card, member string) (string, error) {
	var dst any
	switch member {
	case "adapter":
		dst = &c.Adapter
	case "capabilities":
		dst = &c.Capabilities
	case "skills":
		// One skill at a time, so that an error names the skill.
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return member, jsonTypeError(err)
		}
		if elems == nil {
			return member, nil // null: validate reports it missing
		}
		c.Skills = make([]Skill, len(elems))
		for i, e := range elems {
			field := fmt.Sprintf("skills[%d]", i)
			var id struct {
				ID any `json:"id"`
			}
			if json.Unmarshal(e, &id) == nil {
				if s, ok := id.ID.(string); ok {
					field = fmt.Sprintf("skills[%d](%s)", i, s)
				}
			}
			if err := decodeMember(e, &c.Skills[i]); err != nil {
				return typeErrorPath(err, field), unknownMemberError(jsonTypeError(err), &c.Skills[i])
			}
		}
		return member, nil
	case "authentication":
		dst = &c.Authentication
	case "endpoints":
		dst = &c.Endpoints
	case "requirements":
		dst = &c.Requirements
	case "extensions":
		dst = &c.Extensions
	case "artifact":
		dst = &c.Artifact
	case "signature":
		dst = &c.Signature
	}
	if err := decodeMember(raw, dst); err != nil {
		return typeErrorPath(err, member), unknownMemberError(jsonTypeError(err), dst)
	}
	return member, nil
}

// unknownMemberError words encoding/json's `json: unknown field "verison"`
// as the config's unknown keys are: `unknown member "verison", did you
// mean "version"?`, the member meant being the nearest name of dst's type
// or of a struct in it (the error does not say how deep the member was).
// Other errors are returned as they are.
func unknownMemberError(err error, dst any) error {
	name, ok := strings.CutPrefix(err.Error(), "json: unknown field ")
	if !ok {
		return err
	}
	if n, e := strconv.Unquote(name); e == nil {
		name = n
	}
	var names []string
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := 0; i < t.NumField(); i++ {
			if n := jsonName(t.Field(i)); n != "-" {
				names = append(names, n)
				walk(t.Field(i).Type)
			}
		}
	}
	walk(reflect.TypeOf(dst))
	msg := fmt.Sprintf("unknown member %q", name)
	if best := editdist.Closest(name, names, editdist.Limit(name)); best != "" {
		msg += fmt.Sprintf(", did you mean %q?", best)
	}
	return errors.New(msg)
}

func decodeMember(raw json.RawMessage, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	return dec.Decode(dst)
}

// typeErrorPath is the JSON path of the value a type error is about: the
// member's path followed by the error's field path.
func typeErrorPath(err error, path string) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return path + "." + te.Field
	}
	return path
}

// jsonTypeError says a type error in JSON's words ("want boolean, got
// string"); other errors are returned as they are.
func jsonTypeError(err error) error {
	if _, want, got, ok := abi.JSONTypeMismatch(err); ok {
		return fmt.Errorf("want %s, got %s", want, got)
	}
	return err
}

func (c *Card) validate() error {
	fail := func(field, format string, args ...any) error {
		return &CardError{Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	a := c.Adapter
	if err := abi.ValidateProviderID(a.ID); err != nil {
		return fail("adapter.id", "%v", err)
	}
	if strings.TrimSpace(a.Name) == "" {
		return fail("adapter.name", "required, must not be empty")
	}
	if a.Version == "" {
		return fail("adapter.version", "required, must not be empty (a SemVer version such as 1.0.0)")
	}
	if _, err := semver.StrictNewVersion(a.Version); err != nil {
		return fail("adapter.version", "%q is not a SemVer version (want e.g. 1.0.0): %v", a.Version, err)
	}
	if a.ProtocolVersion == "" {
		return fail("adapter.protocol_version", "required, must not be empty (this host speaks %s)", ProtocolVersion)
	}
	if err := CheckProtocolVersion(a.ProtocolVersion); err != nil {
		return fail("adapter.protocol_version", "%v", err)
	}
	if a.Homepage != "" {
		if u, err := url.Parse(a.Homepage); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fail("adapter.homepage", "%q is not an http(s) URL", a.Homepage)
		}
	}
	if c.Skills == nil {
		return fail("skills", "required member is missing (use [] for an artifact that describes its own tools)")
	}
	seen := map[string]bool{}
	for i := range c.Skills {
		s := &c.Skills[i]
		field := fmt.Sprintf("skills[%d]", i)
		if err := abi.ValidateToolName(s.ID); err != nil {
			return fail(field+".id", "%v", err)
		}
		field = fmt.Sprintf("skills[%d](%s)", i, s.ID)
		if seen[s.ID] {
			return fail(field+".id", "duplicate skill id")
		}
		seen[s.ID] = true
		if strings.TrimSpace(s.Name) == "" {
			return fail(field+".name", "required, must not be empty")
		}
		if s.PermissionLevel == "" {
			return fail(field+".permission_level", "required, must not be empty (one of public, low, medium, high, critical)")
		}
		if !permissionLevels[s.PermissionLevel] {
			return fail(field+".permission_level", "%q is not one of public, low, medium, high, critical", s.PermissionLevel)
		}
		for _, sc := range []struct {
			name string
			doc  *map[string]any
		}{{"input_schema", &s.InputSchema}, {"output_schema", &s.OutputSchema}} {
			if *sc.doc == nil {
				continue
			}
			n, err := abi.Normalize(*sc.doc)
			if err != nil {
				return fail(field+"."+sc.name, "%v", err)
			}
			*sc.doc = n.(map[string]any)
			// Parameters are an object (a call's arguments): a schema
			// without "type" takes any value, and a call whose arguments
			// were "hello" went to the adapter as its params, as the MCP
			// import found (TestTypelessInputSchemaTakesAnObject).
			if _, typed := (*sc.doc)["type"]; !typed && sc.name == "input_schema" {
				(*sc.doc)["type"] = "object"
			}
			if _, err := schema.Compile(s.ID+"."+sc.name, *sc.doc); err != nil {
				return fail(field+"."+sc.name, "not a valid JSON Schema: %v", err)
			}
		}
		if t, ok := s.InputSchema["type"]; ok && t != "object" {
			return fail(field+".input_schema", "type must be \"object\" (tool parameters are an object), not %v", t)
		}
		if _, err := abi.ParseGrants(s.CapabilityRequired); err != nil {
			return fail(field+".capability_required", "%v", err)
		}
		if s.Version != "" {
			if _, err := semver.StrictNewVersion(s.Version); err != nil {
				return fail(field+".version", "%q is not a SemVer version", s.Version)
			}
		}
		switch s.LatencyClass {
		case "", abi.LatencyFast, abi.LatencyNormal, abi.LatencySlow:
		default:
			return fail(field+".latency_class", "%q is not fast, normal or slow", s.LatencyClass)
		}
	}
	if au := c.Authentication; au != nil {
		for i, s := range au.Schemes {
			if !authSchemes[s] {
				return fail(fmt.Sprintf("authentication.schemes[%d]", i), "%q is not one of oauth2, api_key, bearer, mtls", s)
			}
		}
		if au.Required && len(au.Schemes) == 0 {
			return fail("authentication.schemes", "authentication is required but no scheme is listed")
		}
	}
	if e := c.Endpoints; e != nil {
		if e.RPC != "" {
			u, err := url.Parse(e.RPC)
			if err != nil {
				return fail("endpoints.rpc", "%v", err)
			}
			switch u.Scheme {
			case "unix":
				// The socket dialled is what follows "unix://", as written
				// (RemoteProvider.client): unix://run/a.sock, whose "run"
				// url.Parse takes for a host, passed as /a.sock and dialled
				// run/a.sock, relative to the host's working directory;
				// unix:/run/a.sock passed and was called over HTTP; a query
				// or an escape (%20) went into the socket's name
				// (TestUnixEndpointIsAnAbsolutePath).
				sock, ok := strings.CutPrefix(e.RPC, "unix://")
				if !ok || u.Host != "" || u.Path == "" || !path.IsAbs(u.Path) || u.Path != sock {
					return fail("endpoints.rpc", "%q: a unix endpoint needs an absolute socket path right after unix://, with no host, query or %%-escape (unix:///run/…/x.sock)", e.RPC)
				}
			case "tcp":
				// Dialled as what follows "tcp://" less a trailing "/"
				// (RemoteProvider.client): tcp://h:9000/rpc passed and every
				// call failed dialling "h:9000/rpc"; tcp://h passed and the
				// adapter failed to load (TestTCPEndpointIsHostPort).
				port, perr := strconv.Atoi(u.Port())
				if u.Hostname() == "" || perr != nil || port < 1 || port > 65535 || u.User != nil ||
					(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.RawPath != "" {
					return fail("endpoints.rpc", "%q: a tcp endpoint is tcp://HOST:PORT (a port of 1-65535; no path, user or query)", e.RPC)
				}
			case "http", "https":
				if u.Host == "" {
					return fail("endpoints.rpc", "%q has no host", e.RPC)
				}
			default:
				return fail("endpoints.rpc", "%q: scheme must be unix, tcp, http or https", e.RPC)
			}
		}
		if e.HTTP != "" {
			if u, err := url.Parse(e.HTTP); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fail("endpoints.http", "%q is not an http(s) URL", e.HTTP)
			}
		}
		for _, p := range []struct{ name, v string }{{"health", e.Health}, {"metrics", e.Metrics}} {
			if p.v == "" || strings.HasPrefix(p.v, "/") {
				continue
			}
			// An http(s) URL needs a host, as endpoints.http does:
			// https:///health passed the card check (verify, sign), and
			// loading it said only `endpoint https:///health: host "" is
			// empty`; a metrics URL so was kept (TestHealthURLNeedsHost).
			if u, err := url.Parse(p.v); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return fail("endpoints."+p.name, "%q is neither a path (/health) nor an http(s) URL with a host", p.v)
			}
		}
	}
	if r := c.Requirements; r != nil {
		if sw := r.Software; sw != nil {
			if strings.TrimSpace(sw.Name) == "" {
				return fail("requirements.software.name", "required, must not be empty")
			}
			if sw.MinVersion != "" {
				if _, err := ParseMinVersion(sw.MinVersion); err != nil {
					return fail("requirements.software.min_version", "%q is not a version (want one such as 100.0, 120.0.6099.109, 2.3~rc1 or 1:2.3): %v", sw.MinVersion, err)
				}
			}
			if d := sw.Detection; d != nil {
				// A file name: ".desktop" alone (no name before the
				// suffix) passed, and so did ..\\x.desktop, which Windows
				// joins as a path out of the desktop folder
				// (TestDesktopFileIDIsAFileName).
				if d.DesktopFile != "" && (!strings.HasSuffix(d.DesktopFile, ".desktop") || d.DesktopFile == ".desktop" ||
					strings.ContainsAny(d.DesktopFile, "/\\\x00")) {
					return fail("requirements.software.detection.desktop_file", "%q must be a desktop file id such as app.desktop", d.DesktopFile)
				}
				if d.Executable != "" && !path.IsAbs(d.Executable) {
					return fail("requirements.software.detection.executable", "%q must be an absolute path", d.Executable)
				}
				if d.DBusService != nil && *d.DBusService != "" {
					if err := ValidateBusName(*d.DBusService); err != nil {
						return fail("requirements.software.detection.dbus_service", "%v", err)
					}
				}
			}
		}
		for i, d := range r.Dependencies {
			if strings.TrimSpace(d.Name) == "" {
				return fail(fmt.Sprintf("requirements.dependencies[%d].name", i), "required")
			}
			if d.Version != "" {
				if _, err := semver.NewConstraint(d.Version); err != nil {
					return fail(fmt.Sprintf("requirements.dependencies[%d].version", i), "%q is not a version constraint: %v", d.Version, err)
				}
			}
		}
		if _, err := abi.ParseGrants(r.Capabilities); err != nil {
			return fail("requirements.capabilities", "%v", err)
		}
	}
	for i, x := range c.Extensions {
		if !urnPattern.MatchString(x) {
			return fail(fmt.Sprintf("extensions[%d]", i), "%q is not a URN (urn:NID:NSS, such as urn:aios:ext:priority:1.0)", x)
		}
	}
	if c.Artifact != nil {
		// Said of the artifact member, not as trust's "malformed card
		// signature": the card may be unsigned (a draft to sign).
		if err := trust.ValidateArtifactPath(c.Artifact.Path); err != nil {
			return fail("artifact.path", "%s", verifyDetail(err))
		}
		if _, err := trust.ArtifactOf(c.Raw); err != nil {
			return fail("artifact", "%s", verifyDetail(err))
		}
	}
	if s := c.Signature; s != nil {
		// A member left out is named as missing: one missing was told
		// "key_id and value are required", and a missing algorithm
		// `"" is not RS256, …` (TestSignatureMissingMemberNamed).
		if s.Algorithm == "" {
			return fail("signature.algorithm", "required, must not be empty (RS256, ES256, EdDSA or Ed25519)")
		}
		if !trust.CardAlgorithm(s.Algorithm) {
			// trust.VerifyCard's own list: "Ed25519", which it takes,
			// was refused here before the signature was looked at
			// (TestSignatureMemberEd25519).
			return fail("signature.algorithm", "%q is not RS256, ES256, EdDSA or Ed25519", s.Algorithm)
		}
		switch {
		case s.KeyID == "" && s.Value == "":
			return fail("signature", "key_id and value are required")
		case s.KeyID == "":
			return fail("signature.key_id", "required, must not be empty")
		case s.Value == "":
			return fail("signature.value", "required, must not be empty")
		}
	}
	return nil
}

// urnPattern is a URN's form (RFC 8141 §2): "urn" in any case, a
// namespace id of 2-32 letters, digits and hyphens (not at its ends), and
// a namespace-specific string. The check was a "urn:" prefix and 6
// characters: URN:aios:ext:priority:1.0, a URN, was refused, and urn:ab,
// with no NSS, passed (TestExtensionURNForm).
var urnPattern = regexp.MustCompile(`^(?i:urn):[A-Za-z0-9][A-Za-z0-9-]{0,30}[A-Za-z0-9]:[^\x00-\x20]+$`)

// CheckProtocolVersion reports whether v is in SupportedProtocols, by
// SemVer precedence: a pre-release inside the range (0.3.1-draft.1) is
// in it, though the constraint library leaves pre-releases out of every
// range; one of 0.3.0 itself precedes 0.3.0 and is not.
func CheckProtocolVersion(v string) error {
	ver, err := semver.NewVersion(v)
	if err != nil {
		return fmt.Errorf("%q is not a version: %v", v, err)
	}
	cons, _ := semver.NewConstraint(SupportedProtocols)
	if cons.Check(ver) {
		return nil
	}
	if ver.Prerelease() != "" {
		release, _ := ver.SetPrerelease("")
		release, _ = release.SetMetadata("")
		lowest := semver.MustParse(ProtocolVersion)
		if cons.Check(&release) && !ver.LessThan(lowest) {
			return nil
		}
		return fmt.Errorf("protocol version %s, a pre-release of %s, is not supported (this host speaks %s, accepts %s)", v, release.String(), ProtocolVersion, SupportedProtocols)
	}
	return fmt.Errorf("protocol version %s is not supported (this host speaks %s, accepts %s)", v, ProtocolVersion, SupportedProtocols)
}

// Tools maps the card's skills to tool definitions.
func (c *Card) Tools() []abi.ToolDef {
	out := make([]abi.ToolDef, 0, len(c.Skills))
	for _, s := range c.Skills {
		out = append(out, s.ToolDef(c.Adapter.Version))
	}
	return out
}

// ToolDef maps one skill; version is used when the skill has none.
func (s Skill) ToolDef(version string) abi.ToolDef {
	d := abi.ToolDef{
		Name:               s.ID,
		Description:        s.Description,
		Parameters:         s.InputSchema,
		Returns:            s.OutputSchema,
		CapabilityRequired: s.CapabilityRequired,
		Version:            s.Version,
		Deprecated:         s.Deprecated,
		Tags:               s.Tags,
		Examples:           s.Examples,
		Idempotent:         s.Idempotent,
		LatencyClass:       s.LatencyClass,
		PermissionLevel:    s.PermissionLevel,
		MCPExportable:      s.MCPExportable,
	}
	if d.Description == "" {
		d.Description = s.Name
	}
	if d.Parameters == nil {
		d.Parameters = map[string]any{"type": "object"}
	}
	if d.Version == "" {
		d.Version = version
	}
	return d
}

// SkillFromTool is the reverse mapping, for cards the host writes (its own
// well-known card, and providers that have no card).
func SkillFromTool(d abi.ToolDef) Skill {
	level := d.PermissionLevel
	if level == "" {
		level = abi.PermissionMedium
	}
	name := d.Name
	return Skill{ID: d.Name, Name: name, Description: d.Description, PermissionLevel: level, Examples: d.Examples,
		InputSchema: d.Parameters, OutputSchema: d.Returns, CapabilityRequired: d.CapabilityRequired,
		Version: d.Version, Tags: d.Tags, Idempotent: d.Idempotent, LatencyClass: d.LatencyClass,
		MCPExportable: d.MCPExportable, Deprecated: d.Deprecated}
}

// CardFromRegister synthesizes an (unsigned) card for a provider that has
// none, so aios/registry.info answers every provider the same way.
func CardFromRegister(reg *abi.ToolRegister) *Card {
	c := &Card{
		Adapter: AdapterInfo{ID: reg.Provider.ID, Name: reg.Provider.Name, Description: reg.Provider.Description,
			Version: reg.Provider.Version, ProtocolVersion: ProtocolVersion},
		Skills: make([]Skill, 0, len(reg.Tools)),
	}
	if c.Adapter.Name == "" {
		c.Adapter.Name = reg.Provider.ID
	}
	for _, t := range reg.Tools {
		c.Skills = append(c.Skills, SkillFromTool(t))
	}
	sort.Slice(c.Skills, func(i, j int) bool { return c.Skills[i].ID < c.Skills[j].ID })
	if len(reg.Provider.Capabilities) > 0 {
		c.Requirements = &Requirements{Capabilities: reg.Provider.Capabilities}
	}
	return c
}

// Marshal renders the card as JSON (without Raw), Extra members included.
func (c *Card) Marshal() ([]byte, error) {
	b, err := json.Marshal(c)
	if err != nil || len(c.Extra) == 0 {
		return b, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range c.Extra {
		m[k] = v
	}
	return json.Marshal(m)
}

// utf16Encoding names the encoding of data when it is UTF-16 or UTF-32
// (by its byte order mark, else by the NUL bytes around its first
// character, always ASCII in JSON: RFC 4627 §3), "" otherwise.
func utf16Encoding(data []byte) string {
	switch {
	case bytes.HasPrefix(data, []byte{0, 0, 0xfe, 0xff}):
		return "UTF-32BE (byte order mark 00 00 FE FF)"
	case bytes.HasPrefix(data, []byte{0xff, 0xfe, 0, 0}):
		return "UTF-32LE (byte order mark FF FE 00 00)"
	case bytes.HasPrefix(data, []byte{0xfe, 0xff}):
		return "UTF-16BE (byte order mark FE FF)"
	case bytes.HasPrefix(data, []byte{0xff, 0xfe}):
		return "UTF-16LE (byte order mark FF FE)"
	case len(data) >= 4 && data[0] == 0 && data[1] == 0 && data[2] == 0 && data[3] != 0:
		return "UTF-32BE"
	case len(data) >= 4 && data[0] != 0 && data[1] == 0 && data[2] == 0 && data[3] == 0:
		return "UTF-32LE"
	case len(data) >= 2 && data[0] == 0 && data[1] != 0:
		return "UTF-16BE"
	case len(data) >= 2 && data[0] != 0 && data[1] == 0:
		return "UTF-16LE"
	}
	return ""
}

// lineCol is the 1-based line and column (in bytes) of offset in data.
func lineCol(data []byte, offset int) (line, col int) {
	offset = min(offset, len(data))
	line = 1 + bytes.Count(data[:offset], []byte{'\n'})
	return line, offset - bytes.LastIndexByte(data[:offset], '\n')
}

// verifyDetail is what a *trust.VerifyError says was wrong, without its
// sentinel's words; another error's text.
func verifyDetail(err error) string {
	if ve, ok := errors.AsType[*trust.VerifyError](err); ok {
		return ve.Detail
	}
	return err.Error()
}
