package mcp

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/schema"

	"github.com/aios-host/aios-host/internal/wire"
)

// maxErrorText bounds the server's text in the message of a ToolError:
// a tool's error content, a JSON-RPC error's message.
const maxErrorText = 4 << 10

// cutErrorText cuts a server's error text to maxErrorText bytes (at a
// character boundary), marking the cut.
func cutErrorText(s string) string { return wire.CutText(s, maxErrorText, "…") }

// ToolName is the aios name of MCP tool tool of server server.
func ToolName(server, tool string) string { return "mcp-" + server + "-" + tool }

// ResourceToolName is the aios name of the read tool of a resource of
// server, derived from the resource's name (or its URI when the name has
// no ASCII letter or digit):
// lower-cased, every run of characters outside a-z 0-9 _ . replaced by '-'.
func ResourceToolName(server string, r *mcpsdk.Resource) string {
	n := resourceSlug(r.Name)
	if n == "" { // no name, or one without a letter or digit of ASCII (日本語)
		n = resourceSlug(r.URI)
	}
	return "mcp-" + server + "-read-" + n
}

// resourceSlug keeps a name's ASCII letters, digits, '_' and '.', lower
// case, with one '-' for each run of other characters, trimmed.
func resourceSlug(n string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(n) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.' {
			b.WriteRune(c)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.Trim(b.String(), "-.")
}

// importTool converts one MCP tool of server into a ToolDef. It fails,
// naming the tool and the problem, when the name or the schemas cannot be
// registered; the caller skips the tool and logs the reason.
func importTool(server string, t *mcpsdk.Tool, endpointHost string, trustHints bool) (abi.ToolDef, error) {
	if t == nil {
		return abi.ToolDef{}, errors.New("null tool entry")
	}
	if t.Name == "" {
		return abi.ToolDef{}, errors.New("a tool without a name")
	}
	name := ToolName(server, t.Name)
	if err := abi.ValidateToolName(name); err != nil {
		return abi.ToolDef{}, fmt.Errorf("tool %q: %v", t.Name, err)
	}
	params, err := schemaDoc(t.InputSchema)
	if err != nil {
		return abi.ToolDef{}, fmt.Errorf("tool %q: inputSchema: %v", t.Name, err)
	}
	if params == nil {
		params = map[string]any{}
	}
	ty, typed := params["type"]
	if !typed {
		// An MCP tool takes an object ({"properties": …} or {} without a
		// type took any value, and a caller's "hello" went to the server
		// as the call's arguments).
		params["type"] = "object"
	} else if ty != "object" {
		return abi.ToolDef{}, fmt.Errorf("tool %q: inputSchema has type %v; MCP needs an object schema", t.Name, ty)
	}
	if _, err := schema.Compile(name+" params", params); err != nil {
		return abi.ToolDef{}, fmt.Errorf("tool %q: inputSchema does not compile: %v", t.Name, err)
	}
	returns, err := schemaDoc(t.OutputSchema)
	if err != nil {
		return abi.ToolDef{}, fmt.Errorf("tool %q: outputSchema: %v", t.Name, err)
	}
	if returns != nil {
		if _, err := schema.Compile(name+" returns", returns); err != nil {
			return abi.ToolDef{}, fmt.Errorf("tool %q: outputSchema does not compile: %v", t.Name, err)
		}
		if ty, typed := returns["type"]; typed && !typeAllowsObject(ty) {
			// structuredContent is an object (MCP 2025-06-18): such a
			// tool was imported and every call of it failed
			// InvalidResult.
			return abi.ToolDef{}, fmt.Errorf("tool %q: outputSchema has type %v; MCP's structuredContent is an object", t.Name, ty)
		}
	}
	desc := t.Description
	if desc == "" {
		desc = t.Title
	}
	def := abi.ToolDef{
		Name:            name,
		Description:     desc,
		Parameters:      params,
		Returns:         returns,
		Tags:            []string{"mcp", server},
		PermissionLevel: abi.PermissionHigh,
		// The seed's from_mcp_tool: an external call of unknown effect.
		Idempotent:   false,
		LatencyClass: abi.LatencySlow,
	}
	// A server's annotations are hints from code the host does not trust
	// (an Untrusted server saying readOnlyHint would open its tools to
	// agents with a low max_permission): taken only when the operator says
	// so (mcp.servers.<name>.trust_hints).
	if a := t.Annotations; a != nil && trustHints {
		def.Idempotent = a.IdempotentHint
		switch {
		case a.ReadOnlyHint:
			def.PermissionLevel = abi.PermissionLow
		case a.DestructiveHint != nil && !*a.DestructiveHint:
			def.PermissionLevel = abi.PermissionMedium
		}
	}
	if endpointHost != "" {
		def.CapabilityRequired = []string{abi.CapNetwork + "(" + endpointHost + ")"}
	}
	return def, nil
}

// typeAllowsObject reports whether a schema's "type" (a name or a list
// of names) admits an object.
func typeAllowsObject(ty any) bool {
	switch v := ty.(type) {
	case string:
		return v == "object"
	case []any:
		for _, x := range v {
			if x == "object" {
				return true
			}
		}
	}
	return false
}

// importResource converts one resource into a read tool.
func importResource(server string, r *mcpsdk.Resource, endpointHost string) (abi.ToolDef, error) {
	if r == nil {
		return abi.ToolDef{}, errors.New("null resource entry")
	}
	name := ResourceToolName(server, r)
	if err := abi.ValidateToolName(name); err != nil {
		return abi.ToolDef{}, fmt.Errorf("resource %q: %v", r.URI, err)
	}
	if r.URI == "" {
		return abi.ToolDef{}, fmt.Errorf("resource %q has no uri", r.Name)
	}
	return readDef(name, describe("Read MCP resource "+r.URI, r.Description, ""),
		map[string]any{"type": "object", "additionalProperties": false}, endpointHost, "mcp", server, "resource"), nil
}

// schemaDoc turns a schema as the SDK decoded it (map[string]any, or
// anything JSON-marshalable) into a canonical generic object; nil stays nil.
func schemaDoc(s any) (map[string]any, error) {
	if s == nil {
		return nil, nil
	}
	v, err := toGeneric(s)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("schema is a %T, want a JSON object", v)
	}
	return m, nil
}

// toGeneric converts any JSON-marshalable value to canonical form (through
// its JSON text, so that SDK structs keep their wire names and whole
// numbers become int64).
func toGeneric(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := abi.UnmarshalJSONValue(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// toolResult converts an MCP tool result into the aios result: the
// structuredContent when the tool declares an output schema (InvalidResult
// without one), otherwise
// {"content": [...]} (plus "structuredContent" when the server sent one).
// A result with isError becomes a ToolError carrying its text, of the code
// an aios host behind the server gave in _meta (with a RateLimited's
// retry_after_ms), else ProviderError.
func toolResult(server, tool string, r *mcpsdk.CallToolResult, structured bool) (any, error) {
	if r == nil {
		return nil, abi.Errorf(abi.InvalidResult, "mcp server %s: tool %s returned no result", server, tool)
	}
	if r.IsError {
		msg := contentText(r.Content)
		if msg == "" {
			msg = "the tool reported an error without text"
			// A server may say why in structuredContent alone: dropped,
			// it left the caller only the line above.
			if sc := structuredErrorText(r); sc != "" {
				msg += "; its structuredContent: " + sc
			}
		}
		te := &abi.ToolError{Code: remoteCode(r.Meta), Message: fmt.Sprintf("mcp server %s: tool %s: %s", server, tool, msg)}
		if ms, ok := remoteRetry(r.Meta); ok && te.Code == abi.RateLimited {
			te.Data = map[string]any{"retry_after_ms": ms}
		}
		return nil, te
	}
	var sc any
	if v, ok, err := structuredText(r); ok {
		if err != nil {
			return nil, abi.Errorf(abi.InvalidResult, "mcp server %s: tool %s: structuredContent: %v", server, tool, err)
		}
		sc = v
	} else if r.StructuredContent != nil {
		v, err := toGeneric(r.StructuredContent)
		if err != nil {
			return nil, abi.Errorf(abi.InvalidResult, "mcp server %s: tool %s: structuredContent: %v", server, tool, err)
		}
		sc = v
	}
	if structured {
		if sc == nil {
			// MCP: a server must return structured results that conform
			// to the output schema it declares.
			return nil, abi.Errorf(abi.InvalidResult, "mcp server %s: tool %s declares an outputSchema but returned no structuredContent (its content: %s)", server, tool, contentSummary(r.Content))
		}
		return sc, nil
	}
	content := make([]any, 0, len(r.Content))
	for i, c := range r.Content {
		v, err := toGeneric(c)
		if err != nil {
			return nil, abi.Errorf(abi.InvalidResult, "mcp server %s: tool %s: content[%d]: %v", server, tool, i, err)
		}
		// The go-sdk omits an empty text: an embedded resource of no
		// bytes reached the caller with neither text nor blob.
		if er, ok := c.(*mcpsdk.EmbeddedResource); ok && er.Resource != nil && er.Resource.Blob == nil && er.Resource.Text == "" {
			if m, ok := v.(map[string]any); ok {
				if res, ok := m["resource"].(map[string]any); ok {
					res["text"] = ""
				}
			}
		}
		content = append(content, v)
	}
	out := map[string]any{"content": content}
	if sc != nil {
		out["structuredContent"] = sc
	}
	return out, nil
}

// The go-sdk decodes structuredContent into float64 numbers, so an
// integer beyond ±2^53 (9007199254740993, uint64's maximum) would arrive
// rounded or as a float, and a whole float from 2^53 up (2^60) as the
// integer of its shortest form (1152921504606847000), another number.
// So the bridge, which reads each message of a server before the go-sdk
// does (budget.go), hands on a response's result.structuredContent as a
// JSON string holding its text, marked in result._meta with a value
// drawn once per process (a server cannot forge it), and toolResult
// decodes that text exactly (integers as int64 or uint64), as the host
// reads any JSON value.
const metaStructuredText = "org.aios/structuredContent-text"

var structuredTextMark = rand.Text()

// structuredAsText is msg with its result's structuredContent carried as
// its JSON text (see metaStructuredText), and true; msg itself and false
// when it has none (a request, a notification, another result) or cannot
// be read (the go-sdk reports that).
func structuredAsText(msg []byte) ([]byte, bool) {
	if !bytes.Contains(msg, []byte(`"structuredContent"`)) {
		return msg, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(msg, &top) != nil || top["result"] == nil {
		return msg, false
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(top["result"], &res) != nil || res["structuredContent"] == nil {
		return msg, false
	}
	text, err := json.Marshal(string(res["structuredContent"]))
	if err != nil {
		return msg, false
	}
	meta := map[string]json.RawMessage{}
	_ = json.Unmarshal(res["_meta"], &meta) // (one that is no object is replaced)
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	mark, _ := json.Marshal(structuredTextMark)
	meta[metaStructuredText] = mark
	metaJSON, err := json.Marshal(meta)
	if err != nil {
		return msg, false
	}
	res["structuredContent"], res["_meta"] = text, metaJSON
	out := make([]byte, 0, len(msg)+len(text)-len(top["result"])+len(metaJSON)+64)
	out = appendMembers(out, res)
	top["result"] = out
	return appendMembers(nil, top), true
}

// maxToolEntryDepth bounds the nesting of one tools/list entry: the
// go-sdk refuses a message nested deeper than 1000 levels, and an entry
// is 3 levels down ({"result":{"tools":[entry]}}).
const maxToolEntryDepth = 1000 - 4

// dropBadTools is msg, a tools/list answer, without the entries of its
// tools that the go-sdk cannot decode (a name that is no string,
// annotations that are no object, nesting past its 1000 levels), each
// told to skipped; msg itself and false when it is no such answer or has
// none. The go-sdk failed the whole listing for one such entry, and with
// it the server's connection.
func dropBadTools(msg []byte, skipped func(string)) ([]byte, bool) {
	if !bytes.Contains(msg, []byte(`"tools"`)) {
		return msg, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(msg, &top) != nil || top["result"] == nil {
		return msg, false
	}
	var res map[string]json.RawMessage
	if json.Unmarshal(top["result"], &res) != nil || res["tools"] == nil {
		return msg, false
	}
	var tools []json.RawMessage
	if json.Unmarshal(res["tools"], &tools) != nil {
		return msg, false
	}
	kept := make([]json.RawMessage, 0, len(tools))
	for i, e := range tools {
		var err error
		if d := jsonDepth(e); d > maxToolEntryDepth {
			err = fmt.Errorf("nested %d levels deep, past the %d the MCP client decodes", d, maxToolEntryDepth)
		} else {
			var t mcpsdk.Tool
			err = json.Unmarshal(e, &t)
		}
		if err != nil {
			if skipped != nil {
				head := strings.ToValidUTF8(string(e[:min(len(e), 80)]), "?")
				skipped(fmt.Sprintf("tools/list entry %d (%q) is not an MCP tool the client can read: %v", i, head, err))
			}
			continue
		}
		kept = append(kept, e)
	}
	if len(kept) == len(tools) {
		return msg, false
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return msg, false
	}
	res["tools"] = b
	top["result"] = appendMembers(nil, res)
	return appendMembers(nil, top), true
}

// mendBadAnswer is msg, an answer with neither a result nor an error
// ({"jsonrpc":"2.0","id":7}, or "error": null) or with an error that is
// no JSON-RPC error object ("error": "it broke"), made an error answer to
// its request saying so, and true; msg itself and false for any other
// message. The go-sdk decodes a missing result as EOF, which the bridge
// took for the connection's end (ProviderCrashed, a running server
// restarted), and fails to decode such an error, which ended the
// connection and every call on it.
func mendBadAnswer(msg []byte) ([]byte, bool) {
	if bytes.Contains(msg, []byte(`"result"`)) || bytes.Contains(msg, []byte(`"method"`)) {
		return msg, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(msg, &top) != nil {
		return msg, false
	}
	id := bytes.TrimSpace(top["id"])
	if len(id) == 0 || string(id) == "null" {
		return msg, false
	}
	what := "with neither a result nor an error"
	if e := bytes.TrimSpace(top["error"]); len(e) > 0 && string(e) != "null" {
		var we struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		}
		if e[0] == '{' && json.Unmarshal(e, &we) == nil {
			return msg, false
		}
		what = "with an error that is not a JSON-RPC error object ({\"code\": integer, \"message\": string, …}): " +
			strings.ToValidUTF8(wire.CutText(string(e), 200, "…"), "?")
	}
	shown := string(id)
	if len(shown) > 64 {
		shown = strings.ToValidUTF8(shown[:64], "") + "…"
	}
	e, err := json.Marshal(map[string]any{"code": -32603,
		"message": "the server answered request " + shown + " " + what + " (a bug in the server)"})
	if err != nil {
		return msg, false
	}
	return appendMembers(nil, map[string]json.RawMessage{"jsonrpc": json.RawMessage(`"2.0"`), "id": id, "error": e}), true
}

// answerWithoutID is msg's members when msg is a JSON-RPC answer (a
// result or an error, no method) without an id — its id null or missing,
// or of a type no id has —, and true; nil and false for
// any other message. JSON-RPC answers a message the server could not
// read (a parse error, an invalid request) with an error whose id is
// null; an answer without one otherwise is a bug in the server. The
// go-sdk takes either for an invalid message and ends the connection:
// every call in flight answered "invalid request" (as if the server had
// refused it) and the server was restarted. A large result is read only
// when it has no "id" at all (a scan of each large result to tell a null
// id would cost as much as its decoding). A message whose top-level id
// is a string or a number (nearly every one) is told by a scan that
// allocates nothing (topIDUsable), not decoded: every answer of every
// server was decoded here once more before the go-sdk decoded it.
func answerWithoutID(msg []byte) (map[string]json.RawMessage, bool) {
	if len(msg) > 64<<10 && bytes.Contains(msg, []byte(`"id"`)) {
		return nil, false
	}
	if topIDUsable(msg) {
		return nil, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(msg, &top) != nil {
		return nil, false
	}
	_, isRequest := top["method"]
	_, result := top["result"]
	_, failed := top["error"]
	if isRequest || top["jsonrpc"] == nil || !result && !failed {
		return nil, false
	}
	if id := bytes.TrimSpace(top["id"]); len(id) > 0 && string(id) != "null" && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
		return nil, false // a string or a number
	}
	// No id, null, or one that is neither a string nor a number (an
	// object, an array, a boolean: the go-sdk's "parse error").
	return top, true
}

// topIDUsable says whether msg, a JSON object, has a top-level "id" (the
// last, as encoding/json reads it) that is a string or a number. It walks
// the top level only, skipping the members' values, and says false
// (decode to know) for anything it does not read plainly: a member name
// with an escape, or a message that is not an object.
func topIDUsable(msg []byte) bool {
	i := skipSpace(msg, 0)
	if i >= len(msg) || msg[i] != '{' {
		return false
	}
	usable, found := false, false
	for i++; ; {
		i = skipSpace(msg, i)
		if i >= len(msg) || msg[i] != '"' {
			return false // '}' (no more members) or not read plainly
		}
		end := i + 1
		for end < len(msg) && msg[end] != '"' && msg[end] != '\\' {
			end++
		}
		if end >= len(msg) || msg[end] == '\\' {
			return false
		}
		isID := string(msg[i+1:end]) == "id"
		i = skipSpace(msg, end+1)
		if i >= len(msg) || msg[i] != ':' {
			return false
		}
		i = skipSpace(msg, i+1)
		if i >= len(msg) {
			return false
		}
		if isID {
			c := msg[i]
			usable, found = c == '"' || c == '-' || c >= '0' && c <= '9', true
		}
		if i = skipValue(msg, i); i < 0 {
			return false
		}
		i = skipSpace(msg, i)
		if i < len(msg) && msg[i] == ',' {
			i++
			continue
		}
		return found && usable && i < len(msg) && msg[i] == '}'
	}
}

// skipSpace is the index of the first byte of msg from i on that is not
// JSON whitespace.
func skipSpace(msg []byte, i int) int {
	for i < len(msg) && (msg[i] == ' ' || msg[i] == '\t' || msg[i] == '\n' || msg[i] == '\r') {
		i++
	}
	return i
}

// skipValue is the index just past the JSON value at msg[i] (msg is valid
// JSON: its brackets balance outside strings), or -1 past the end.
func skipValue(msg []byte, i int) int {
	depth := 0
	for ; i < len(msg); i++ {
		switch msg[i] {
		case '"':
			for i++; i < len(msg) && msg[i] != '"'; i++ {
				if msg[i] == '\\' {
					i++
				}
			}
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i // the object's end: a scalar value ended before it
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
	}
	if depth == 0 {
		return i
	}
	return -1
}

// idWords says how an answer without an id (answerWithoutID) gave it.
func idWords(top map[string]json.RawMessage) string {
	id := bytes.TrimSpace(top["id"])
	if len(id) == 0 || string(id) == "null" {
		return "without its id"
	}
	return "under the id " + strings.ToValidUTF8(wire.CutText(string(id), 64, "…"), "?") + ", which is neither a string nor a number"
}

// jsonDepth is the deepest nesting of objects and arrays in a JSON value.
func jsonDepth(v []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range v {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// appendMembers appends the JSON object of members (their values as they
// are) to b.
func appendMembers(b []byte, members map[string]json.RawMessage) []byte {
	b = append(b, '{')
	first := true
	for k, v := range members {
		if !first {
			b = append(b, ',')
		}
		first = false
		key, _ := json.Marshal(k)
		b = append(append(append(b, key...), ':'), v...)
	}
	return append(b, '}')
}

// structuredText is the exact structuredContent of a result that
// structuredAsText carried as text (ok false for any other).
func structuredText(r *mcpsdk.CallToolResult) (v any, ok bool, err error) {
	text, isText := r.StructuredContent.(string)
	if !isText || r.Meta[metaStructuredText] != structuredTextMark {
		return nil, false, nil
	}
	err = abi.UnmarshalJSONValue([]byte(text), &v)
	return v, true, err
}

// structuredErrorText is the JSON text of a failed call's
// structuredContent, cut as an error text is ("" when it has none).
func structuredErrorText(r *mcpsdk.CallToolResult) string {
	if text, ok := r.StructuredContent.(string); ok && r.Meta[metaStructuredText] == structuredTextMark {
		return cutErrorText(text) // as the server wrote it (structuredAsText)
	}
	if r.StructuredContent == nil {
		return ""
	}
	b, err := json.Marshal(r.StructuredContent)
	if err != nil {
		return ""
	}
	return cutErrorText(string(b))
}

// resourceResult converts a resources/read answer into {"contents": [...]},
// each entry {uri, mimeType?, text | blob (base64)}.
// readDef is the definition of a tool that reads from a server (a
// resource, a template's resources, a prompt): idempotent, permission
// low, and over HTTP needing Network to the server's host.
func readDef(name, desc string, params map[string]any, endpointHost string, tags ...string) abi.ToolDef {
	def := abi.ToolDef{
		Name:            name,
		Description:     desc,
		Parameters:      params,
		Tags:            tags,
		Idempotent:      true,
		PermissionLevel: abi.PermissionLow,
	}
	if endpointHost != "" {
		def.CapabilityRequired = []string{abi.CapNetwork + "(" + endpointHost + ")"}
	}
	return def
}

// describe is head, then ": " and the description (or else the title) an
// entry has.
func describe(head, description, title string) string {
	switch {
	case description != "":
		return head + ": " + description
	case title != "":
		return head + ": " + title
	}
	return head
}

func resourceResult(r *mcpsdk.ReadResourceResult) (any, error) {
	if r == nil {
		return nil, errors.New("no result")
	}
	contents := make([]any, 0, len(r.Contents))
	for i, c := range r.Contents {
		if c == nil {
			return nil, fmt.Errorf("contents[%d] is null", i)
		}
		v, err := toGeneric(c)
		if err != nil {
			return nil, fmt.Errorf("contents[%d]: %v", i, err)
		}
		contents = append(contents, v)
	}
	return map[string]any{"contents": contents}, nil
}

// contentText joins the text items of content, bounded by maxErrorText.
func contentText(content []mcpsdk.Content) string {
	var b strings.Builder
	for _, c := range content {
		if t, ok := c.(*mcpsdk.TextContent); ok {
			if b.Len() > 0 {
				b.WriteString("; ")
			}
			b.WriteString(t.Text)
		}
		if b.Len() > maxErrorText {
			return cutErrorText(b.String())
		}
	}
	return b.String()
}

// metaError is the _meta key under which an aios host's MCP server gives
// a failed call's ToolError (mcpserver.MetaError).
const metaError = "org.aios/error"

// metaDepth is the _meta key of a tools/call under which the bridge gives
// the depth of the call it makes (mcpserver.MetaDepth).
const metaDepth = "org.aios/depth"

// metaParentID is the _meta key of a tools/call under which the bridge
// gives the id of the call it makes (mcpserver.MetaParentID).
const metaParentID = "org.aios/parent_id"

// metaTimeoutMS is the _meta key of a tools/call under which the bridge
// gives the milliseconds left of its call's deadline (mcpserver.MetaTimeoutMS).
const metaTimeoutMS = "org.aios/timeout_ms"

// remoteCode is the ToolError code of a failed call: the one an aios host
// behind the MCP server gave in _meta (so that an aios → MCP → aios round
// trip keeps Timeout, CapabilityDenied, InvalidParams…), else
// ProviderError.
func remoteCode(meta mcpsdk.Meta) abi.ErrorCode {
	e, _ := meta[metaError].(map[string]any)
	code, _ := e["code"].(string)
	if c := abi.ErrorCode(code); c.Known() {
		return c
	}
	return abi.ProviderError
}

// remoteRetry is the retry_after_ms of a RateLimited error an aios host
// behind the MCP server gave in _meta, when it is a sane number of
// milliseconds (above 0, at most 10¹² — 31 years; rounded up to a whole
// one): the hint a caller waits by (abi.RateLimited). Nothing else of the
// remote's data is taken.
func remoteRetry(meta mcpsdk.Meta) (int64, bool) {
	e, _ := meta[metaError].(map[string]any)
	d, _ := e["data"].(map[string]any)
	var ms float64
	switch v := d["retry_after_ms"].(type) {
	case float64:
		ms = v
	case int64:
		ms = float64(v)
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return 0, false
		}
		ms = f
	default:
		return 0, false
	}
	if !(ms > 0 && ms <= 1e12) {
		return 0, false
	}
	return int64(math.Ceil(ms)), true
}

// contentSummary describes a result's content for an error message: its
// text (bounded), or how many blocks it had without text.
func contentSummary(content []mcpsdk.Content) string {
	if t := contentText(content); t != "" {
		return strconv.Quote(t)
	}
	return fmt.Sprintf("%d blocks without text", len(content))
}
