package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// idTransport wraps a stdio server's transport in idConn. JSON-RPC requires an answer to carry its request's id as sent;
// the go-sdk matches ids by type and value and drops an answer that
// matches none, so a server answering request 7 under the id "7" left the
// call waiting until its deadline and then said only Timeout. idConn
// turns such an answer into an error answer to request 7 at once, naming
// what the server did.
//
// Only a stdio server's: the go-sdk looks for unexported methods on its
// streamable HTTP connection (sessionUpdated, which opens the standalone
// stream), and a wrapper would hide them.
type idTransport struct {
	base  mcpsdk.Transport
	onLog func(params json.RawMessage) // a notifications/message read
}

func (t *idTransport) Connect(ctx context.Context) (mcpsdk.Connection, error) {
	c, err := t.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &idConn{Connection: c, pending: map[jsonrpc.ID]struct{}{}, onLog: t.onLog}, nil
}

// maxPendingIDs bounds idConn.pending: requests sent, not answered and
// not cancelled. Past it new requests are not tracked (their answers, if
// mis-typed, are dropped as the go-sdk drops them); calls have deadlines
// and cancel, so a session holds far fewer.
const maxPendingIDs = 1 << 14

// idConn remembers the ids of the requests the bridge sent until they are
// answered or cancelled, and mends an answer whose id matches one of them
// only as text (idTransport).
type idConn struct {
	mcpsdk.Connection

	onLog func(params json.RawMessage)

	mu      sync.Mutex
	pending map[jsonrpc.ID]struct{}
}

func (c *idConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok {
		switch {
		case req.ID.IsValid():
			c.mu.Lock()
			if len(c.pending) < maxPendingIDs {
				c.pending[req.ID] = struct{}{}
			}
			c.mu.Unlock()
		case req.Method == "notifications/cancelled":
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
					c.forget(id)
				}
			}
		}
	}
	err := c.Connection.Write(ctx, msg)
	if req, ok := msg.(*jsonrpc.Request); ok && err != nil && req.ID.IsValid() {
		c.forget(req.ID)
	}
	return err
}

func (c *idConn) forget(id jsonrpc.ID) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

func (c *idConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && !req.ID.IsValid() && req.Method == "notifications/message" && c.onLog != nil {
		c.onLog(req.Params)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if err != nil || !ok || !resp.ID.IsValid() {
		return msg, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.pending[resp.ID]; ok {
		delete(c.pending, resp.ID)
		return msg, nil
	}
	text := idText(resp.ID)
	for id := range c.pending {
		if idText(id) != text {
			continue
		}
		delete(c.pending, id)
		return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
			Message: fmt.Sprintf("the server answered request %s under the id %s, a %s: JSON-RPC answers must carry the request's id as sent (a bug in the server)",
				idJSON(id), idJSON(resp.ID), idKind(resp.ID))}}, nil
	}
	return msg, nil // an answer to no request: the go-sdk drops it
}

// idText is an id's value as text: 7 and "7" alike.
func idText(id jsonrpc.ID) string {
	switch v := id.Raw().(type) {
	case int64:
		return strconv.FormatInt(v, 10)
	case string:
		return v
	}
	return fmt.Sprint(id.Raw())
}

// idJSON is an id as it is written in JSON (a string quoted), for messages.
func idJSON(id jsonrpc.ID) string {
	if s, ok := id.Raw().(string); ok {
		if len(s) > 64 {
			s = s[:64] + "…"
		}
		return strconv.Quote(s)
	}
	return idText(id)
}

func idKind(id jsonrpc.ID) string {
	if _, ok := id.Raw().(string); ok {
		return "string"
	}
	return "number"
}
