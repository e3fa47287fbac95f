package js

import (
	"bytes"
	"container/heap"
	"context"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/editdist"
	"github.com/aios-host/aios-host/internal/hostop"
)

// The host functions behind ctx.* and the SDK's timers. Each runs on the
// loop goroutine; host work runs on its own goroutine and settles its
// promise through a job posted back to the loop.
//
// Space objects: ctx.spaces.read(id, space?) resolves to a string when the
// object's bytes are valid UTF-8 and to a Uint8Array otherwise;
// ctx.spaces.readBytes always resolves to a Uint8Array; ctx.spaces.write
// takes a string (stored as UTF-8), Uint8Array or ArrayBuffer and resolves
// to the new ObjectId.

func (w *worker) throw(format string, args ...any) {
	panic(w.vm.NewTypeError(fmt.Sprintf(format, args...)))
}

// throwArg throws the TypeError of a host call's argument of another type
// (or missing), with code InvalidParams: uncaught, the caller gets
// InvalidParams, as from a Python tool (whose SDK raises ToolError
// InvalidParams for the same mistake) and from the host's own check of a
// worker's host call (internal/hostop), not a ProviderError "TypeError: …".
// It is still a TypeError to the handler that catches it.
func (w *worker) throwArg(format string, args ...any) {
	e := w.vm.NewTypeError(fmt.Sprintf(format, args...))
	_ = e.Set("code", string(abi.InvalidParams))
	panic(e)
}

func (w *worker) requireCall(what string) {
	if !w.inCall {
		w.throw("%s is only available while a tool call runs (not in top-level code or after the call returned)", what)
	}
}

func (w *worker) argString(fc goja.FunctionCall, i int, what string, optional bool) string {
	a := fc.Argument(i)
	if goja.IsUndefined(a) || goja.IsNull(a) {
		if optional {
			return ""
		}
		w.throwArg("%s: argument %d is missing", what, i+1)
	}
	if !goja.IsString(a) {
		w.throwArg("%s: argument %d must be a string, got %s", what, i+1, describeArg(a))
	}
	return a.String()
}

// hostAsync runs op off the loop and returns a promise for its result.
func (w *worker) hostAsync(what string, op func(ctx context.Context, env abi.Env) (any, error), conv func(any) goja.Value) goja.Value {
	pr, resolve, reject := w.vm.NewPromise()
	env := w.cs.env
	if env == nil {
		_ = reject(w.errorValue(abi.Errorf(abi.Unavailable, "%s: no host environment for this call", what)))
		return w.vm.ToValue(pr)
	}
	s := w.session()
	s.pending++
	if s.hostOps == nil {
		s.hostOps = make(map[string]int)
	}
	s.hostOps[what]++
	ctx := w.cs.ctx
	s.startHost(func() {
		v, err := safeOp(ctx, env, op)
		s.post(w, job{sess: s, run: func() error {
			s.pending--
			s.hostOps[what]--
			if err != nil {
				return reject(w.errorValue(abi.AsToolError(err, abi.ProviderError)))
			}
			return resolve(conv(v))
		}})
	})
	return w.vm.ToValue(pr)
}

// startHost runs a host call of the session on a goroutine of its own, at
// most hostop.MaxInFlight at once, as for a provider isolated in a worker
// process: past them the call waits in the session's queue, without a
// goroutine, and starts when one finishes (a Promise.all of 15 000
// ctx.callTool had 15 000 nested calls in the host at once:
// TestInProcessHostCallsInFlightBounded). What is queued when the call
// ends never starts.
func (s *session) startHost(run func()) {
	s.hostMu.Lock()
	if s.running >= hostop.MaxInFlight {
		s.queued = append(s.queued, run)
		s.hostMu.Unlock()
		return
	}
	s.running++
	s.hostMu.Unlock()
	go func() {
		for run != nil {
			run()
			s.hostMu.Lock()
			run = nil
			select {
			case <-s.done:
				clear(s.queued)
				s.queued = nil
			default:
				if len(s.queued) > 0 {
					run = s.queued[0]
					s.queued[0] = nil
					s.queued = s.queued[1:]
				}
			}
			if run == nil {
				s.running--
			}
			s.hostMu.Unlock()
		}
	}()
}

func safeOp(ctx context.Context, env abi.Env, op func(context.Context, abi.Env) (any, error)) (v any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = abi.Errorf(abi.Internal, "host call panicked: %v", r)
		}
	}()
	return op(ctx, env)
}

// errorValue makes an SDK ToolError object carrying te's code, message and data.
func (w *worker) errorValue(te *abi.ToolError) goja.Value {
	args := []goja.Value{w.vm.ToValue(string(te.Code)), w.vm.ToValue(te.Message)}
	if te.Data != nil {
		args = append(args, toJS(w.vm, te.Data))
	}
	o, err := w.vm.New(w.errCtor, args...)
	if err != nil {
		// The provider broke its ToolError class. Not goja's GoError:
		// its "value" is te itself, a Go struct the tool could read,
		// write and call methods of (TestNoGoObjectThroughToolError).
		return w.plainError(te)
	}
	return o
}

// plainError is te as a built-in Error with code, message and a copy of
// data, made without running the provider's code (data properties, no
// setters).
func (w *worker) plainError(te *abi.ToolError) goja.Value {
	o, err := w.vm.New(w.errBase, w.vm.ToValue(te.Message))
	if err != nil {
		return w.vm.NewTypeError(string(te.Code) + ": " + te.Message)
	}
	_ = o.DefineDataProperty("name", w.vm.ToValue("ToolError"), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	_ = o.DefineDataProperty("code", w.vm.ToValue(string(te.Code)), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	if te.Data != nil {
		_ = o.DefineDataProperty("data", toJS(w.vm, te.Data), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	}
	return o
}

func (w *worker) bytesValue(data []byte) goja.Value {
	o, err := w.vm.New(w.u8Ctor, w.vm.ToValue(w.vm.NewArrayBuffer(data)))
	if err != nil {
		panic(err)
	}
	return o
}

func (w *worker) nativeRead(fc goja.FunctionCall) goja.Value {
	w.requireCall("ctx.spaces.read")
	id := w.argString(fc, 0, "ctx.spaces.read", false)
	space := w.argString(fc, 1, "ctx.spaces.read", true)
	asBytes := fc.Argument(2).ToBoolean()
	return w.hostAsync("ctx.spaces.read", func(ctx context.Context, env abi.Env) (any, error) {
		obj, err := env.SpaceRead(ctx, space, id)
		if err != nil {
			return nil, err
		}
		return obj.Data, nil
	}, func(v any) goja.Value {
		data := v.([]byte)
		if !asBytes && utf8.Valid(data) {
			return w.vm.ToValue(string(data))
		}
		return w.bytesValue(data)
	})
}

func (w *worker) nativeWrite(fc goja.FunctionCall) goja.Value {
	w.requireCall("ctx.spaces.write")
	space := w.argString(fc, 0, "ctx.spaces.write", false)
	var data []byte
	switch a := fc.Argument(1); {
	case goja.IsString(a):
		// Stored as UTF-8, which a lone surrogate has no form of: goja
		// gives U+FFFD for it, and the object stored was other text than
		// the tool's, without a word, where a Python tool's str.encode
		// raises and ctx.callTool's params refuse it.
		// Looked for only when the text holds U+FFFD.
		data = []byte(a.String())
		if !bytes.Contains(data, []byte("\uFFFD")) {
			break
		}
		if c, i, ok := loneSurrogateIn(a); ok {
			w.throw("ctx.spaces.write: the data string holds a lone surrogate, \\u%04x at index %d (half of a UTF-16 surrogate pair, a string cut inside an emoji say), which has no UTF-8 form: it would be stored as U+FFFD; write whole characters, or a Uint8Array of the bytes meant", c, i)
		}
	default:
		switch x := a.Export().(type) {
		case goja.ArrayBuffer:
			data = append([]byte(nil), x.Bytes()...)
		case []byte:
			data = append([]byte(nil), x...)
		default:
			hint := ""
			if typedArrayNames[a.ExportType()] != "" {
				hint = ": write its bytes as new Uint8Array(a.buffer, a.byteOffset, a.byteLength)"
			}
			w.throw("ctx.spaces.write: data must be a string, Uint8Array, ArrayBuffer or DataView, got %s%s", describeArg(a), hint)
		}
	}
	return w.hostAsync("ctx.spaces.write", func(ctx context.Context, env abi.Env) (any, error) {
		obj, err := env.SpaceWrite(ctx, space, data)
		if err != nil {
			return nil, err
		}
		return obj.ID, nil
	}, func(v any) goja.Value { return w.vm.ToValue(v) })
}

// exportArg converts a host call's argument, bounded as a result is: an
// array is charged its Go slots against the memory budget before it is
// made (a sparse array of 60 million holes in ctx.callTool's params took
// 1.3 GiB of the host's memory, TestSparseArrayArgumentsBounded).
func (w *worker) exportArg(v goja.Value, what string) any {
	ex := exporter{vm: w.vm, limit: w.p.rt.opts.MaxResultBytes, maxElems: int64(w.budget / slotBytes)}
	out, _, err := ex.export(v)
	if err != nil {
		w.throw("%s: %v", what, err)
	}
	return out
}

func (w *worker) nativeCallTool(fc goja.FunctionCall) goja.Value {
	w.requireCall("ctx.callTool")
	name := w.argString(fc, 0, "ctx.callTool", false)
	params := w.exportArg(fc.Argument(1), "ctx.callTool params")
	if params == nil {
		params = map[string]any{}
	}
	version := w.argString(fc, 2, "ctx.callTool", true)
	// Named with its tool (cut at 64 characters): a timeout or cancel
	// while it runs says which nested call the handler awaited.
	return w.hostAsync(fmt.Sprintf("ctx.callTool(%.64q)", name), func(ctx context.Context, env abi.Env) (any, error) {
		return env.CallTool(context.WithValue(ctx, nestKey{w.p}, true), name, version, params)
	}, func(v any) goja.Value { return toJS(w.vm, v) })
}

func (w *worker) nativeComplete(fc goja.FunctionCall) goja.Value {
	// ctx.ai.completion (the third argument true) is ctx.ai.complete
	// answering {text, model, finishReason}: a tool could not tell an
	// answer cut at maxTokens from a whole one (TestCompletionFinishReason).
	full := fc.Argument(2).ToBoolean()
	name := "ctx.ai.complete"
	if full {
		name = "ctx.ai.completion"
	}
	w.requireCall(name)
	req := abi.CompleteRequest{Prompt: w.argString(fc, 0, name, false)}
	// Options of the wrong type or out of range are refused, as the WASM
	// guests' ai_complete refuses them: dropped, maxTokens '100' left the
	// backend's default without a word; converted unchecked, -5 or 1e300
	// reached the backend as -5 or -9223372036854775808.
	if a := fc.Argument(1); !goja.IsUndefined(a) && !goja.IsNull(a) {
		w.checkCompleteOptions(a, name)
		o, ok := w.exportArg(a, name+" options").(map[string]any)
		if !ok {
			w.throwArg("%s: options must be an object ({maxTokens, system, temperature, model, stop}), got %s", name, describeArg(a))
		}
		opt := func(keys ...string) (string, any) {
			for _, k := range keys {
				if v, ok := o[k]; ok && v != nil {
					return k, v
				}
			}
			return "", nil
		}
		if a, b := o["maxTokens"], o["max_tokens"]; a != nil && b != nil && !reflect.DeepEqual(a, b) { // (either may be an array: not ==)
			// Both spellings (defaults spread under a caller's options):
			// the second was dropped without a word.
			w.throwArg("%s: options maxTokens (%v) and max_tokens (%v) are one option given twice with different values: give one", name, a, b)
		}
		if k, v := opt("maxTokens", "max_tokens"); k != "" {
			var n float64
			switch x := v.(type) {
			case int64:
				n = float64(x)
			case float64:
				n = x
			default:
				w.throwArg("%s: option %s must be an integer, got %s", name, k, jsTypeName(v))
			}
			if n != math.Trunc(n) || n < 0 || n > math.MaxInt32 {
				w.throwArg("%s: option %s must be an integer from 0 to %d, got %v", name, k, math.MaxInt32, v)
			}
			req.MaxTokens = int(n)
		}
		if k, v := opt("temperature"); k != "" {
			var t float64
			switch x := v.(type) {
			case int64:
				t = float64(x)
			case float64:
				t = x
			default:
				w.throwArg("%s: option temperature must be a number, got %s", name, jsTypeName(v))
			}
			req.Temperature = &t
		}
		if k, v := opt("stop"); k != "" {
			// A string is one stop sequence, an array of strings several
			// (chat-completions' "stop"; an MCP server's stopSequences).
			switch x := v.(type) {
			case string:
				req.Stop = []string{x}
			case []any:
				req.Stop = make([]string, len(x))
				for i, e := range x {
					s, ok := e.(string)
					if !ok {
						w.throwArg("%s: option stop must be a string or an array of strings, got %s at index %d", name, jsTypeName(e), i)
					}
					req.Stop[i] = s
				}
			default:
				w.throwArg("%s: option stop must be a string or an array of strings, got %s", name, jsTypeName(v))
			}
		}
		for _, k := range []string{"system", "model"} {
			if _, v := opt(k); v != nil {
				s, ok := v.(string)
				if !ok {
					w.throwArg("%s: option %s must be a string, got %s", name, k, jsTypeName(v))
				}
				if k == "system" {
					req.System = s
				} else {
					req.Model = s
				}
			}
		}
	}
	return w.hostAsync(name, func(ctx context.Context, env abi.Env) (any, error) {
		resp, err := env.Complete(ctx, req)
		if err != nil {
			return nil, err
		}
		if full {
			return resp, nil
		}
		return resp.Text, nil
	}, func(v any) goja.Value {
		resp, ok := v.(abi.CompleteResponse)
		if !ok {
			return w.vm.ToValue(v)
		}
		o := w.vm.NewObject()
		_ = o.Set("text", resp.Text)
		_ = o.Set("model", resp.Model)
		_ = o.Set("finishReason", resp.FinishReason)
		return o
	})
}

// completeOptions are the options of ctx.ai.complete (aios-sdk.d.ts's
// AiosCompleteOptions).
var completeOptions = []string{"maxTokens", "max_tokens", "system", "temperature", "model", "stop"}

// checkCompleteOptions refuses, with InvalidParams, an option of
// ctx.ai.complete that is not one (a misspelt {maxtokens: 50} was dropped
// without a word and the backend's default used, where Python's
// complete(max_token=50) raises TypeError), and a number option that is
// NaN or infinite, which the export refused as a ProviderError "…: NaN is
// not a JSON number" where other values out of range are InvalidParams
// naming the option (TestCompleteOptionsUnknownAndNonFinite). Options
// whose value is undefined are left out, as JSON leaves them.
func (w *worker) checkCompleteOptions(a goja.Value, name string) {
	o, ok := a.(*goja.Object)
	if !ok || o.ClassName() != classObject {
		return // not an object: the caller says so
	}
	for _, k := range o.Keys() {
		v := o.Get(k)
		if v == nil || goja.IsUndefined(v) {
			continue
		}
		if !slices.Contains(completeOptions, k) {
			hint := ""
			if near := editdist.Closest(k, completeOptions, editdist.Limit(k)); near != "" {
				hint = " (did you mean " + near + "?)"
			}
			w.throwArg("%s: unknown option %q%s; the options are maxTokens (or max_tokens), system, temperature, model and stop", name, clip(k, 64), hint)
		}
		if !goja.IsNumber(v) {
			continue
		}
		if f := v.ToFloat(); math.IsNaN(f) || math.IsInf(f, 0) {
			switch k {
			case "temperature":
				w.throwArg("%s: option temperature must be a finite number, got %s", name, v.String())
			case "maxTokens", "max_tokens":
				w.throwArg("%s: option %s must be an integer from 0 to %d, got %s", name, k, math.MaxInt32, v.String())
			case "stop":
				w.throwArg("%s: option stop must be a string or an array of strings, got %s", name, v.String())
			default:
				w.throwArg("%s: option %s must be a string, got %s", name, k, v.String())
			}
		}
	}
}

// jsTypeName names the JavaScript type of an exported value.
// typedArrayNames names the typed arrays by the Go type goja exports them
// as (a Uint8Array and a Uint8ClampedArray are []byte, taken as bytes).
var typedArrayNames = map[reflect.Type]string{
	reflect.TypeFor[[]int8]():    "Int8Array",
	reflect.TypeFor[[]int16]():   "Int16Array",
	reflect.TypeFor[[]uint16]():  "Uint16Array",
	reflect.TypeFor[[]int32]():   "Int32Array",
	reflect.TypeFor[[]uint32]():  "Uint32Array",
	reflect.TypeFor[[]float32](): "Float32Array",
	reflect.TypeFor[[]float64](): "Float64Array",
	reflect.TypeFor[[]int64]():   "BigInt64Array",
	reflect.TypeFor[[]uint64]():  "BigUint64Array",
}

var typeBytes = reflect.TypeFor[[]byte]()

// describeArg names what a host call was given instead of what it takes:
// a typed array by its type and length (its text, the elements joined,
// read as a number: "got 258" for a Uint16Array, or megabytes of them),
// bytes too (a Uint8Array, which typedArrayNames leaves out, was "got
// 1,2", the whole join built to be cut: TestBytesArgumentNamed), anything
// else as its text, cut at 64 characters.
func describeArg(v goja.Value) string {
	// By the type first: Export of an object or array copies all of it.
	switch v.ExportType() {
	case typeBytes:
		name := "Uint8Array"
		if o, ok := v.(*goja.Object); ok {
			if tag := o.GetSymbol(goja.SymToStringTag); tag != nil && goja.IsString(tag) {
				name = tag.String() // Uint8ClampedArray
			}
		}
		return fmt.Sprintf("a %s of %d elements", name, len(v.Export().([]byte)))
	case typeArrayBuffer:
		return fmt.Sprintf("an ArrayBuffer of %d bytes", len(v.Export().(goja.ArrayBuffer).Bytes()))
	}
	if name := typedArrayNames[v.ExportType()]; name != "" {
		return fmt.Sprintf("a %s of %d elements", name, reflect.ValueOf(v.Export()).Len())
	}
	if o, ok := v.(*goja.Object); ok && o.ClassName() == "Array" {
		return fmt.Sprintf("an array of %d elements", o.Get("length").ToInteger())
	}
	// Cut at the 64th character without converting the whole text.
	s := v.String()
	n := 0
	for i := range s {
		if n == 64 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

func jsTypeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func (w *worker) nativeLog(fc goja.FunctionCall) goja.Value {
	level := fc.Argument(0).String()
	logger := w.p.logger
	ctx := context.Background()
	if w.inCall && w.cs.env != nil {
		if l := w.cs.env.Logger(); l != nil {
			logger = l
		}
		ctx = w.cs.ctx
	}
	lv := slog.LevelInfo
	switch level {
	case "debug":
		lv = slog.LevelDebug
	case "warn":
		lv = slog.LevelWarn
	case "error":
		lv = slog.LevelError
	}
	// A line the log level filters out is never shown: counted, it spent
	// the budget of the lines that are (TestFilteredLevelNotCounted).
	if !logger.Enabled(ctx, lv) {
		return goja.Undefined()
	}
	msg, ok := w.p.logs.line(fc.Argument(1).String())
	if !ok {
		return goja.Undefined()
	}
	logger.Log(ctx, lv, msg, "source", "js")
	return goja.Undefined()
}

func (w *worker) nativeCallInfo(goja.FunctionCall) goja.Value {
	w.requireCall("ctx.call")
	c := w.cs.call
	o := w.vm.NewObject()
	setProp(o, "id", w.vm.ToValue(c.ID))
	setProp(o, "parentId", w.vm.ToValue(c.ParentID))
	setProp(o, "caller", w.vm.ToValue(c.Caller))
	setProp(o, "tool", w.vm.ToValue(c.Tool))
	setProp(o, "depth", w.vm.ToValue(c.Depth))
	w.mu.Lock()
	dl := w.deadline
	w.mu.Unlock()
	setProp(o, "deadline", w.vm.ToValue(dl/int64(time.Millisecond)))
	return o
}

func (w *worker) nativeSetTimeout(fc goja.FunctionCall) goja.Value {
	w.requireCall("setTimeout")
	fn, ok := goja.AssertFunction(fc.Argument(0))
	if !ok {
		w.throw("setTimeout: the first argument must be a function")
	}
	ms := fc.Argument(1).ToFloat()
	if ms != ms || ms < 1 {
		// Below 1 ms (0, negative, NaN) node takes 1 ms: a setTimeout(f, 0)
		// set after a setTimeout(g, 1) fires after it
		// (TestTimersFireInDueOrder).
		ms = 1
	}
	if ms > math.MaxInt32 {
		// Past 2^31-1 ms node fires after 1 ms (browsers take ToInt32 of
		// it): Infinity was converted to a Duration unchecked, which Go
		// leaves to the platform (at once on amd64), and 2 ** 40 waited
		// for the deadline (TestTimerDelayOverflowFiresAtOnce).
		ms = 1
	}
	var args []goja.Value
	if len(fc.Arguments) > 2 {
		args = append(args, fc.Arguments[2:]...)
	}
	s := w.session()
	if s.timers == nil {
		s.timers = make(map[int64]*jsTimer)
	}
	w.timerSeq++
	id := w.timerSeq
	s.pending++
	d := time.Duration(ms * float64(time.Millisecond))
	if d > 24*time.Hour {
		d = 24 * time.Hour // never fires before the deadline anyway
	}
	jt := &jsTimer{id: id, due: time.Now().Add(d), fn: fn, args: args}
	s.timers[id] = jt
	heap.Push(&s.due, jt)
	// The Go timer only wakes the loop: the job runs the timer due first
	// (the earliest, the first set of those due at once), as node does.
	// Each timer's own Go timer posting its own callback ran timers set
	// with the same delay in any order (TestTimersFireInDueOrder).
	jt.t = time.AfterFunc(d, func() {
		s.post(w, job{sess: s, run: func() error { return s.fireDue() }})
	})
	return w.vm.ToValue(id)
}

// jsTimer is a setTimeout of a call: its id, when it is due, what it runs.
type jsTimer struct {
	t    *time.Timer
	id   int64
	due  time.Time
	fn   goja.Callable
	args []goja.Value
}

// timerQueue is a call's timers by due time, the first set first of those
// due at once (a min-heap; container/heap). A cleared timer stays in it,
// gone from session.timers, until it comes up.
type timerQueue []*jsTimer

func (q timerQueue) Len() int { return len(q) }
func (q timerQueue) Less(i, j int) bool {
	return q[i].due.Before(q[j].due) || q[i].due.Equal(q[j].due) && q[i].id < q[j].id
}
func (q timerQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *timerQueue) Push(x any)   { *q = append(*q, x.(*jsTimer)) }
func (q *timerQueue) Pop() any {
	old := *q
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return t
}

// fireDue runs the callback of the timer due first among those whose
// time has come, if any: each Go timer that fires runs one, so every
// timer runs once, in node's order, whichever Go timer fired first.
func (s *session) fireDue() error {
	for len(s.due) > 0 {
		ft := s.due[0]
		if s.timers[ft.id] != ft { // cleared
			heap.Pop(&s.due)
			continue
		}
		if ft.due.After(time.Now()) {
			return nil
		}
		heap.Pop(&s.due)
		delete(s.timers, ft.id)
		s.pending--
		_, err := ft.fn(goja.Undefined(), ft.args...)
		return err
	}
	return nil
}

func (w *worker) nativeClearTimeout(fc goja.FunctionCall) goja.Value {
	if !w.inCall || w.cs.sess == nil {
		return goja.Undefined()
	}
	id := fc.Argument(0).ToInteger()
	s := w.cs.sess
	if t, ok := s.timers[id]; ok {
		t.t.Stop()
		delete(s.timers, id)
		s.pending--
	}
	return goja.Undefined()
}
