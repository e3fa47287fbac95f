package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/space"
)

// Space objects as MCP resources (the seed: "MCP resources map to AIOS
// Space objects"). A client sees, in resources/list, the objects of the
// Spaces its agent holds ReadSpace for, as aios-space://<space>/<id>, and
// reads them with resources/read: the host checks the grant, counts the
// read against the agent's rate limit and records it in the audit log
// (host.ReadSpaceAs). resources/templates/list gives the URI's template,
// for a client that knows an object's id. Spaces change all the time: the
// list is read at each request, and list_changed is not sent.

// SpaceScheme is the URI scheme of Space objects served as resources.
const SpaceScheme = "aios-space"

// spaceTemplate is the resource template of a Space object. The id is a
// reserved expansion: "sha256:<hex>" keeps its colon.
const spaceTemplate = SpaceScheme + "://{space}/{+id}"

// private is the cache hint of what depends on the agent: only this
// client may cache it (and it is stale at once: ttlMs 0).
var private = mcpsdk.Cacheable{CacheScope: "private"}

// resourcePage is how many resources one resources/list page holds.
const resourcePage = 500

// resourceMiddleware answers resources/list, resources/templates/list and
// the reads of aios-space URIs; other methods (and other URIs) go on to
// the go-sdk.
func (s *Server) resourceMiddleware(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		switch method {
		case "resources/list":
			var cursor string
			if p, ok := req.GetParams().(*mcpsdk.ListResourcesParams); ok && p != nil {
				cursor = p.Cursor
			}
			return s.listSpaceResources(s.agentOfExtra(req.GetExtra()), cursor)
		case "resources/templates/list":
			// One page: a cursor is none this server gave.
			if p, ok := req.GetParams().(*mcpsdk.ListResourceTemplatesParams); ok && p != nil && p.Cursor != "" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid cursor %s: resources/templates/list has one page, which needs no cursor", quoteCut(p.Cursor))}
			}
			return &mcpsdk.ListResourceTemplatesResult{Cacheable: mcpsdk.Cacheable{CacheScope: "public"}, ResourceTemplates: []*mcpsdk.ResourceTemplate{{
				URITemplate: spaceTemplate,
				Name:        "space-object",
				Title:       "aios Space object",
				Description: "An object of an aios Space by its space and id (sha256:<hex>); readable when this client's agent holds ReadSpace(<space>)",
			}}}, nil
		case "resources/read":
			p, ok := req.GetParams().(*mcpsdk.ReadResourceParams)
			if ok && p != nil && p.URI == "" {
				// The go-sdk answered "Resource not found" of URI "".
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "resources/read needs params.uri, the URI of the resource to read (" + SpaceScheme + "://<space>/<object id>, as resources/list gives them)"}
			}
			if ok && p != nil && isSpaceURI(p.URI) {
				ss, _ := req.GetSession().(*mcpsdk.ServerSession)
				return s.readSpaceResource(host.WithOrigin(ctx, originOf(req.GetExtra(), ss)), s.agentOfExtra(req.GetExtra()), p.URI)
			}
			if ok && p != nil {
				// The server has no other resources: the go-sdk's bare
				// "Resource not found" said neither which URI nor why.
				return nil, resourceNotFound(p.URI, fmt.Sprintf("%s is not an %s URI; this server serves only %s://<space>/<object id> (as resources/list gives them)", quoteCut(p.URI), SpaceScheme, SpaceScheme))
			}
		}
		return next(ctx, method, req)
	}
}

// cutSpaceScheme is uri after "aios-space:", the scheme in any case (RFC
// 3986 3.1: schemes are case-insensitive), and whether it has it.
func cutSpaceScheme(uri string) (string, bool) {
	n := len(SpaceScheme)
	if len(uri) <= n || uri[n] != ':' || !strings.EqualFold(uri[:n], SpaceScheme) {
		return "", false
	}
	return uri[n+1:], true
}

// isSpaceURI says whether uri has the scheme aios-space, in any case.
func isSpaceURI(uri string) bool {
	_, ok := cutSpaceScheme(uri)
	return ok
}

// spaceURI is the resource URI of object id of space.
func spaceURI(space, id string) string { return SpaceScheme + "://" + space + "/" + id }

// parseSpaceURI splits aios-space://<space>/<id>; the id may be
// percent-encoded (sha256%3A…, as a simple {id} expansion writes it).
func parseSpaceURI(uri string) (space, id string, err error) {
	rest, ok := cutSpaceScheme(uri)
	if ok {
		rest, ok = strings.CutPrefix(rest, "//")
	}
	if !ok {
		return "", "", fmt.Errorf("resource URI %s: want %s://<space>/<object id>", quoteCut(uri), SpaceScheme)
	}
	space, id, ok = strings.Cut(rest, "/")
	if !ok || space == "" || id == "" {
		return "", "", fmt.Errorf("resource URI %s: want %s://<space>/<object id>", quoteCut(uri), SpaceScheme)
	}
	if space, err = url.PathUnescape(space); err == nil {
		id, err = url.PathUnescape(id)
	}
	if err != nil {
		return "", "", fmt.Errorf("resource URI %s: %v", quoteCut(uri), err)
	}
	// The space is the URI's host, which is case-insensitive (RFC 3986
	// 3.2.2), and space names are lower-case: aios-space://Docs/… names
	// docs. ASCII letters only (strings.ToLower maps the Kelvin sign to k).
	space = strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, space)
	return space, id, nil
}

// listSpaceResources is one page of the objects agent may read, in order
// of their URI; the cursor is the last URI of the page before, encoded.
func (s *Server) listSpaceResources(agent, cursor string) (*mcpsdk.ListResourcesResult, error) {
	after := ""
	if cursor != "" {
		// The URI of an object, as a page ends with: anything else is
		// no cursor of this list (all would sort before or after it).
		b, err := base64.RawURLEncoding.DecodeString(cursor)
		if err == nil {
			var sp, id string
			if sp, id, err = parseSpaceURI(string(b)); err == nil && spaceURI(sp, id) != string(b) {
				err = errors.New("not as a page gives it")
			}
			if err == nil {
				if err = space.ValidateSpaceName(sp); err == nil {
					err = space.ValidateID(id)
				}
			}
		}
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid cursor %s: pass the nextCursor of an earlier resources/list page, or no cursor for the first page", quoteCut(cursor))}
		}
		after = string(b)
	}
	spaces, err := s.h.ReadableSpaces(agent)
	if err != nil {
		return nil, toRPCError(abi.AsToolError(err, abi.Internal))
	}
	// In the order of the URIs: "a-b/" sorts before "a/".
	sort.Slice(spaces, func(i, j int) bool { return spaces[i]+"/" < spaces[j]+"/" })
	// Per agent, and stale at once (Spaces change all the time).
	res := &mcpsdk.ListResourcesResult{Cacheable: private, Resources: []*mcpsdk.Resource{}}
	for _, sp := range spaces {
		prefix := spaceURI(sp, "")
		if after != "" && prefix < after && !strings.HasPrefix(after, prefix) {
			continue // every URI of this space sorts before the cursor
		}
		// One more than the page has room for: whether there is a next page.
		afterID := "" // the cursor's object when it is of this space
		if strings.HasPrefix(after, prefix) {
			afterID = after[len(prefix):]
		}
		ids, err := s.h.ListSpacePageAs(agent, sp, afterID, resourcePage-len(res.Resources)+1)
		if err != nil {
			return nil, toRPCError(abi.AsToolError(err, abi.Internal))
		}
		for _, id := range ids {
			u := spaceURI(sp, id)
			if u <= after {
				continue
			}
			if len(res.Resources) == resourcePage {
				res.NextCursor = base64.RawURLEncoding.EncodeToString([]byte(res.Resources[len(res.Resources)-1].URI))
				return res, nil
			}
			res.Resources = append(res.Resources, &mcpsdk.Resource{URI: u, Name: sp + "/" + id})
		}
	}
	return res, nil
}

// readSpaceResource reads one aios-space URI for agent.
func (s *Server) readSpaceResource(ctx context.Context, agent, uri string) (*mcpsdk.ReadResourceResult, error) {
	space, id, err := parseSpaceURI(uri)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	if !s.begin() {
		return nil, toRPCError(abi.Errorf(abi.Unavailable, "the MCP server is shutting down"))
	}
	defer s.calls.Done()
	var c *mcpsdk.ResourceContents
	_, err = s.h.ReadSpaceAsChecked(ctx, agent, space, id, func(data []byte) *abi.ToolError {
		c = spaceContents(uri, data)
		if c.Blob == nil && encodedLen(c) > maxContentBytes {
			// Its JSON text is too long ('<', '>', '&' are six bytes
			// each: markup grows up to sixfold); as base64 it may fit.
			c = &mcpsdk.ResourceContents{URI: uri, MIMEType: c.MIMEType, Blob: data}
		}
		if n := encodedLen(c); n > maxContentBytes {
			// A text is sent as base64 when too long as JSON (above).
			return &abi.ToolError{Code: abi.TooLarge, Message: fmt.Sprintf("object %s in space %s has %d bytes, %d as base64 in a resources/read answer: over the 16 MiB one MCP message may hold (what clients built on the go-sdk read, and this server's stdio takes); read it with a tool or aios-host space get",
				id, space, len(data), n), Data: map[string]any{"limit": int64(maxContentBytes)}}
		}
		return nil
	})
	if err != nil {
		te := abi.AsToolError(err, abi.Internal)
		if te.Code == abi.NotFound {
			return nil, resourceNotFound(uri, te.Message)
		}
		return nil, toRPCError(te)
	}
	return &mcpsdk.ReadResourceResult{Cacheable: private, Contents: []*mcpsdk.ResourceContents{c}}, nil
}

// resourceNotFound is the go-sdk's "Resource not found" error of uri
// (its code, and the URI in data), its message saying why: the go-sdk's
// alone named neither the URI nor what was missing. Its data is written
// by encoding/json: the go-sdk's uses %q, whose \x01 is no JSON escape,
// and an answer that could not be encoded ended the session
// (TestNotFoundURIWithControlCharKeepsSession).
func resourceNotFound(uri, why string) error {
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: mcpsdk.CodeResourceNotFound, Message: "Resource not found: " + why, Data: data}
}

// maxContentBytes bounds the encoded text or blob of a resources/read
// answer: one message holds at most MaxLineBytes (the go-sdk's line and
// SSE event limits), less room for the rest of the answer.
const maxContentBytes = MaxLineBytes - 64<<10

// encodedLen is the length of c's text or blob as JSON (a short text's
// own length: escaped, it still fits).
func encodedLen(c *mcpsdk.ResourceContents) int {
	if c.Blob != nil {
		return base64.StdEncoding.EncodedLen(len(c.Blob))
	}
	if len(c.Text) <= maxContentBytes/6 {
		return len(c.Text) // at most 6 bytes a byte (\u001b): it fits
	}
	b, _ := json.Marshal(c.Text)
	return len(b)
}

// spaceContents is data, the object of uri, as a resource's contents.
func spaceContents(uri string, data []byte) *mcpsdk.ResourceContents {
	c := &mcpsdk.ResourceContents{URI: uri, MIMEType: http.DetectContentType(data)}
	if c.MIMEType == "text/plain; charset=utf-8" && isJSONDocument(data) {
		// Go's sniffer never says application/json: a tool's JSON
		// object was text/plain (TestJSONObjectMIMEType).
		c.MIMEType = "application/json"
	}
	// An empty object is an empty blob: the go-sdk omits an empty text,
	// and MCP requires contents to hold text or blob.
	if len(data) > 0 && utf8.Valid(data) && textual(c.MIMEType) {
		c.Text = string(data)
	} else {
		c.Blob = data
		if c.Blob == nil {
			c.Blob = []byte{}
		}
		// The sniffer calls any text UTF-8: a blob of text that is not
		// (Latin-1, say) is of a charset unknown, not UTF-8.
		if mt, ok := strings.CutSuffix(c.MIMEType, "; charset=utf-8"); ok && !utf8.Valid(data) {
			c.MIMEType = mt
		}
	}
	return c
}

// isJSONDocument says whether data is a whole JSON object or array.
func isJSONDocument(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && (t[0] == '{' || t[0] == '[') && json.Valid(data)
}

// textual says whether a sniffed MIME type is text (sent as text rather
// than base64).
func textual(mime string) bool {
	return strings.HasPrefix(mime, "text/") || strings.HasPrefix(mime, "application/json")
}

// toRPCError is a failed read as a JSON-RPC error: InvalidParams stays
// itself; the rest are -32000 with the ToolError in data under MetaError
// (as a failed tool call's result carries it in _meta).
func toRPCError(te *abi.ToolError) error {
	code := int64(-32000)
	if te.Code == abi.InvalidParams {
		code = jsonrpc.CodeInvalidParams
	}
	// encoding/json, not %q: Go's \x01 and \xe9 are no JSON escapes, and
	// an answer whose data is no JSON could not be sent, which ended the
	// session (TestRefusedReadErrorDataIsJSON).
	data, _ := json.Marshal(map[string]any{MetaError: map[string]string{"code": string(te.Code), "message": te.Message}})
	return &jsonrpc.Error{Code: code, Message: string(te.Code) + ": " + te.Message, Data: data}
}

// resourcesOn says whether Space objects are served (mcp.resources).
func (s *Server) resourcesOn() bool { return s.cfg.Resources == nil || *s.cfg.Resources }

// capabilities are the server's: tools, and resources when Space objects
// are served.
func (s *Server) capabilities() *mcpsdk.ServerCapabilities {
	// logging: the messages tools log while serving a client's call go
	// to that client (calllog.go).
	c := &mcpsdk.ServerCapabilities{Tools: &mcpsdk.ToolCapabilities{ListChanged: true}, Logging: &mcpsdk.LoggingCapabilities{}}
	if s.resourcesOn() {
		c.Resources = &mcpsdk.ResourceCapabilities{}
	}
	return c
}
