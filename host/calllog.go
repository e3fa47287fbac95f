package host

import (
	"context"
	"log/slog"
)

// CallLog is one message a provider logged while serving a call (through
// its Env's Logger: a WASM guest's aios.log and its stdout/stderr lines,
// console.log of JS, logging of Python, a component's log import, a
// native provider's env.Logger()).
type CallLog struct {
	Level    slog.Level
	Message  string
	Provider string // the provider that logged it
	Tool     string // the tool it was serving
	CallID   string // the call it was serving (a nested call's own id)
	// Attrs are the record's other attributes ("guest": "stderr",
	// "truncated": true, …), groups flattened to "group.key".
	Attrs map[string]any
}

// CallLogFunc receives the messages logged while a call runs. It is called
// on the goroutine that logged, possibly on several at once (a provider's
// goroutines, nested calls), and must not block for long: the provider's
// log call waits for it.
type CallLogFunc func(CallLog)

type callLogKey struct{}

// WithCallLog returns ctx carrying fn: the messages logged by the
// providers serving the calls made with ctx, and by the nested calls they
// make, are handed to fn as well as written to the host's log. fn sees
// every level, debug included, whatever the host's log level is. The MCP
// server uses it to forward them to its client as notifications/message.
func WithCallLog(ctx context.Context, fn CallLogFunc) context.Context {
	if fn == nil {
		return ctx
	}
	return context.WithValue(ctx, callLogKey{}, fn)
}

// callLog is the CallLogFunc of f's call: a nested call has its parent's
// (set when it is made), a top-level call the one of the context it was
// made with, looked up only when its provider logs.
func (f *frame) callLog() CallLogFunc {
	if f.logFn != nil {
		return f.logFn
	}
	if f.ctx.parent == nil {
		return nil
	}
	fn, _ := f.ctx.parent.Value(callLogKey{}).(CallLogFunc)
	return fn
}

// observedHandler writes a record to the host's handler (when its level
// is enabled there) and hands it to a CallLogFunc.
type observedHandler struct {
	base  slog.Handler
	fn    CallLogFunc
	head  CallLog // Provider, Tool, CallID
	attrs []slog.Attr
	group string // "a.b." prefix of the attributes added from now on
}

func (h *observedHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *observedHandler) Handle(ctx context.Context, r slog.Record) error {
	var err error
	if h.base.Enabled(ctx, r.Level) {
		err = h.base.Handle(ctx, r)
	}
	e := h.head
	e.Level, e.Message = r.Level, r.Message
	if n := len(h.attrs) + r.NumAttrs(); n > 0 {
		e.Attrs = make(map[string]any, n)
		for _, a := range h.attrs {
			addAttr(e.Attrs, "", a)
		}
		r.Attrs(func(a slog.Attr) bool {
			addAttr(e.Attrs, h.group, a)
			return true
		})
	}
	h.fn(e)
	return err
}

func addAttr(m map[string]any, prefix string, a slog.Attr) {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range v.Group() {
			addAttr(m, p, g)
		}
		return
	}
	if a.Key == "" {
		return
	}
	m[prefix+a.Key] = v.Any()
}

func (h *observedHandler) WithAttrs(as []slog.Attr) slog.Handler {
	n := *h
	n.base = h.base.WithAttrs(as)
	n.attrs = make([]slog.Attr, 0, len(h.attrs)+len(as))
	n.attrs = append(n.attrs, h.attrs...)
	for _, a := range as {
		if h.group != "" {
			a = slog.Attr{Key: h.group[:len(h.group)-1], Value: slog.GroupValue(a)}
		}
		n.attrs = append(n.attrs, a)
	}
	return &n
}

func (h *observedHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	n := *h
	n.base = h.base.WithGroup(name)
	n.group = h.group + name + "."
	return &n
}
