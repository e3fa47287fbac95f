package js

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"github.com/aios-host/aios-host/abi"
)

// How JS failures become ToolErrors:
//
//   - a thrown (or rejected) value with a string `code` naming a known
//     abi.ErrorCode keeps that code and its message (a nested call's
//     ToolError rethrown unchanged, or `throw new aios.ToolError(code, msg)`);
//   - any other thrown value is ProviderError "<Name>: <message> (at
//     file:line:col)" with Data {"name", "stack"}, positions of the original
//     source; an AggregateError's errors are named in its message and
//     in Data["errors"], an error's cause in its message and
//     Data["cause"]; a plain object thrown is shown as its JSON;
//   - stack overflow (goja's uncatchable StackOverflowError) and Go panics
//     are ProviderCrashed and the runtime is discarded;
//   - an interrupt carries the watchdog's reason (Timeout, Cancelled, or
//     ProviderCrashed for the memory budget) and the runtime is discarded.

// maxStackLines bounds the stack kept in error data.
const maxStackLines = 12

// maxErrorText bounds the message, name and stack of an error built from a
// thrown value: results are bounded (MaxResultBytes, the host's
// max_result_bytes), and an error reaches the caller and the audit log as
// whole as a result does. It is below the 64 KiB the host keeps of a
// provider's message, leaving room for the cut's note, the error's name
// and where it was thrown, which the host's own cut would drop.
const maxErrorText = 60 << 10

// toPrimitiveText gives node's words for goja's TypeError of an object
// that has no primitive value (a null-prototype dictionary,
// Object.create(null), in a string or a sum): goja's message, "Could not
// convert &{Object 0xc000123 <nil> true map[k0:0 …] …} (*goja.baseObject)
// to primitive", is the Go struct behind the object, its addresses and
// every property, and reached the caller and the audit log
// (TestToPrimitiveErrorWithoutGoDump). Any other message is as it is.
func toPrimitiveText(message string) string {
	if strings.HasPrefix(message, "Could not convert &{") && strings.HasSuffix(message, " to primitive") {
		return "Cannot convert object to primitive value"
	}
	return message
}

// cutText cuts s to maxErrorText bytes (at a character boundary) and says
// how much was cut.
func cutText(s string) string {
	if len(s) <= maxErrorText {
		return s
	}
	head := strings.ToValidUTF8(s[:maxErrorText], "")
	return head + fmt.Sprintf("… (%d more bytes)", len(s)-len(head))
}

// pcSuffix matches goja's "file:line:col(pc)" program counter suffix.
var pcSuffix = regexp.MustCompile(`(:\d+:\d+)\(\d+\)`)

func cleanStack(s string) string {
	s = pcSuffix.ReplaceAllString(s, "$1")
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	// The frames of the bundle's own code (NAME.bundle.js: the module
	// wrapper esbuild emits around an ES module, its helpers) name a file
	// that exists nowhere: left out, unless they are all the stack has.
	// So do the host's own (the Go functions behind ctx and the size
	// checks, limits.js and the SDK prelude): "at
	// github.com/aios-host/…(*limits).checkCtor-fm (native)", "at F
	// (aios-limits.js:25:45)" came before the provider's line
	// (TestErrorStackLeavesOutHostFrames).
	own := slices.DeleteFunc(slices.Clone(lines), func(l string) bool {
		f := frameFile(l)
		return strings.HasSuffix(f, ".bundle.js") || f == "aios-limits.js" || f == "aios-sdk-prelude.js" || f == "aios-sdk" ||
			(strings.HasPrefix(l, "\tat github.com/aios-host/") && strings.HasSuffix(l, "(native)"))
	})
	if slices.ContainsFunc(own, func(l string) bool { return frameFile(l) != "" }) {
		lines = own
	}
	// A stack framesString already cut ends in its "... N more frames":
	// counted with the frames cut here, not as one of them.
	more := 0
	if n := len(lines); n > 0 {
		if t, ok := strings.CutPrefix(lines[n-1], "\t... "); ok {
			if t, ok = strings.CutSuffix(t, " more frames"); ok {
				if m, err := strconv.Atoi(t); err == nil {
					more, lines = m, lines[:n-1]
				}
			}
		}
	}
	if len(lines) > maxStackLines {
		more += len(lines) - maxStackLines
		lines = lines[:maxStackLines]
	}
	if more > 0 {
		lines = append(lines, fmt.Sprintf("\t... %d more frames", more))
	}
	return strings.Join(lines, "\n")
}

// frameFile is the file a stack line ("\tat f (file:1:2)", "\tat file:1:2")
// names, "" for a line that is no frame or names none (native).
func frameFile(line string) string {
	file, _, ok := strings.Cut(frameAt(line), ":")
	if !ok {
		return ""
	}
	return file
}

// frameAt is where a stack line's frame is ("file:1:2", or "native"),
// "" for a line that is no frame.
func frameAt(line string) string {
	l, ok := strings.CutPrefix(strings.TrimSpace(line), "at ")
	if !ok {
		return ""
	}
	if i := strings.LastIndexByte(l, '('); i >= 0 && strings.HasSuffix(l, ")") {
		l = l[i+1 : len(l)-1]
	}
	return l
}

// firstFrame returns "file:line:col" of the first frame that has a file
// and is the provider's (not the SDK's, its prelude's or limits.js's).
func firstFrame(stack string) string {
	// A frame in the bundle itself (NAME.bundle.js: esbuild's helpers,
	// such as __runInitializers for decorators, which the source map does
	// not map) names a file that exists nowhere: the first frame in the
	// provider's own source is the one to show, the helper's only when
	// there is none.
	helper := ""
	for _, l := range strings.Split(stack, "\n") {
		if l = frameAt(l); l == "" {
			continue
		}
		if l != "native" && strings.Contains(l, ":") && !strings.HasPrefix(l, "aios-sdk:") && !strings.HasPrefix(l, "aios-sdk-prelude.js:") && !strings.HasPrefix(l, "aios-limits.js:") {
			if file, _, _ := strings.Cut(l, ":"); strings.HasSuffix(file, ".bundle.js") {
				if helper == "" {
					helper = l
				}
				continue
			}
			return l
		}
	}
	return helper
}

func framesString(frames []goja.StackFrame) string {
	var b strings.Builder
	for i := range frames {
		if i == maxStackLines {
			fmt.Fprintf(&b, "\t... %d more frames\n", len(frames)-i)
			break
		}
		f := &frames[i]
		p := f.Position()
		if p.Filename == "" {
			fmt.Fprintf(&b, "\tat %s (native)\n", f.FuncName())
			continue
		}
		fmt.Fprintf(&b, "\tat %s (%s:%d:%d)\n", f.FuncName(), p.Filename, p.Line, p.Column)
	}
	return strings.TrimRight(b.String(), "\n")
}

func knownCode(s string) (abi.ErrorCode, bool) {
	c := abi.ErrorCode(s)
	return c, c.Known()
}

// errorFromJS converts an error returned by goja (from a call, a program
// run, or a promise job) into a ToolError. discard reports that the runtime
// must not be reused.
func (w *worker) errorFromJS(err error) (te *abi.ToolError, discard bool) {
	// A thrown value first, and by its type: errors.As would call the
	// Exception's Unwrap, which reads the value (its prototype chain, a
	// Proxy's getPrototypeOf trap, its "value" property) outside any JS
	// frame, where a revoked Proxy panicked (TestExoticThrownValues).
	if ex, ok := err.(*goja.Exception); ok {
		return w.errorFromValue(ex.Value(), ex), false
	}
	var intr *goja.InterruptedError
	if errors.As(err, &intr) {
		if t, ok := intr.Value().(*abi.ToolError); ok {
			return t, true
		}
		return &abi.ToolError{Code: abi.Timeout, Message: fmt.Sprintf("interrupted: %v", intr.Value())}, true
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		st := framesString(so.Stack())
		msg := fmt.Sprintf("stack overflow: more than %d nested calls", w.p.rt.opts.MaxCallStackSize)
		if f := firstFrame(st); f != "" {
			msg += " (at " + f + ")"
		}
		return &abi.ToolError{Code: abi.ProviderCrashed, Message: msg, Data: map[string]any{"stack": st}}, true
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return w.errorFromValue(ex.Value(), ex), false
	}
	var ce *goja.CompilerSyntaxError
	if errors.As(err, &ce) {
		return &abi.ToolError{Code: abi.ProviderError, Message: "SyntaxError: " + ce.Error()}, false
	}
	return &abi.ToolError{Code: abi.ProviderError, Message: err.Error()}, false
}

// errorFromValue converts a thrown or rejected JS value. ex, when not nil,
// supplies the stack for values that carry none.
func (w *worker) errorFromValue(v goja.Value, ex *goja.Exception) *abi.ToolError {
	return w.readThrown(v, ex, 0)
}

// readThrown is thrownError for a value whose reading may throw: a getter
// of it, or goja itself outside any JS frame (a revoked Proxy, an Error
// whose name is a Symbol), which made ProviderCrashed "JS runtime
// panicked: TypeError: Proxy already revoked" and dropped the runtime as
// crashed. It is ProviderError saying the value could not be read and
// what reading it threw (TestExoticThrownValues). An interrupt still
// panics (the caller's recover keeps its reason).
func (w *worker) readThrown(v goja.Value, ex *goja.Exception, depth int) (te *abi.ToolError) {
	rex := w.vm.Try(func() { te = w.thrownError(v, ex, depth) })
	if rex == nil {
		return te
	}
	why := "reading that threw too" // kept when reading rex throws as well
	_ = w.vm.Try(func() { why = listedText(w.thrownError(rex.Value(), rex, maxCauseDepth)) })
	te = &abi.ToolError{Code: abi.ProviderError, Message: "uncaught value that could not be read (reading it threw " + why + ")"}
	withThrowSite(te, ex)
	return te
}

// withThrowSite gives te, the error of a thrown value that is not an
// Error, the stack of ex (nil: none) in data.stack and its first frame in
// the message.
func withThrowSite(te *abi.ToolError, ex *goja.Exception) {
	if ex == nil {
		return
	}
	// cleanStack: the bundle's own frames (its module wrapper) name a file
	// that exists nowhere, as they are left out of an Error's stack
	// (TestThrownValueStackLeavesOutBundle).
	if st := cleanStack(framesString(ex.Stack())); st != "" {
		te.Data = map[string]any{"stack": st}
		if f := firstFrame(st); f != "" {
			te.Message += " (at " + f + ")"
		}
	}
}

// maxListedErrors bounds the errors of an AggregateError named in its
// message (and data.errors); maxListedError bounds each one's text.
const (
	maxListedErrors = 8
	maxListedError  = 2 << 10
	maxCauseDepth   = 3
)

// thrownError is errorFromValue; depth counts the AggregateErrors and
// causes it is inside: an AggregateError's errors are listed one level
// deep, causes maxCauseDepth levels.
func (w *worker) thrownError(v goja.Value, ex *goja.Exception, depth int) *abi.ToolError {
	o, isObj := v.(*goja.Object)
	if !isObj {
		te := &abi.ToolError{Code: abi.ProviderError, Message: "uncaught " + describe(v)}
		withThrowSite(te, ex)
		return te
	}
	str := func(name string) string {
		p := o.Get(name)
		if p == nil || goja.IsUndefined(p) || goja.IsNull(p) {
			return ""
		}
		return p.String()
	}
	raw := str("message")
	message := cutText(toPrimitiveText(raw))
	if code, ok := knownCode(str("code")); ok {
		te := &abi.ToolError{Code: code, Message: message}
		if d := o.Get("data"); d != nil && !goja.IsUndefined(d) {
			ex := exporter{vm: w.vm, limit: 1 << 20}
			if dv, _, err := ex.export(d); err == nil {
				te.Data = dv
			} else {
				// Said, as the Python SDK says it: it was left out
				// without a word (TestToolErrorDataLeftOutSaysSo).
				why := abi.AsToolError(err, abi.InvalidResult).Message
				why = clip(why, 500)
				te.Message += " (its data was left out: " + why + ")"
			}
		}
		return te
	}
	name := cutText(str("name"))
	// data.name is the value's own: a thrown plain object or array is no
	// Error (TestThrownPlainObjectHasNoErrorName).
	ownName := name != "" || o.ClassName() == "Error"
	if name == "" {
		name = "Error"
	}
	stack := str("stack")
	if stack == "" && ex != nil {
		stack = framesString(ex.Stack())
	}
	if message != raw && strings.HasPrefix(stack, name+": "+raw) {
		stack = name + ": " + message + stack[len(name)+2+len(raw):]
	}
	stack = cutText(cleanStack(stack))
	// An Error without a message is its name alone, as String(e) and
	// node say it: "Error: " and nothing after the colon read as a
	// message lost (TestEmptyErrorMessageNamesErrorAlone).
	msg := name
	if message != "" {
		msg += ": " + message
	}
	var list listedErrors
	listed := 0
	if depth == 0 {
		// An AggregateError (Promise.any's, all of whose promises were
		// rejected) said "AggregateError: " and nothing of why: its
		// errors are named, as node prints them.
		list, listed = w.listErrors(o, depth)
	}
	if message == "" && o.ClassName() != "Error" {
		msg = "uncaught " + w.describeObject(o)
	}
	// A code that is not the ABI's (node's err.code = 'ENOENT', a
	// library's own) was dropped without a word: the message names it
	// unless its text already does, and data.code keeps it.
	// A number (an HTTP status, errno) is kept a number: it became the
	// string "404" (TestForeignNumericErrorCodeKept).
	var foreignCode any
	if cv := o.Get("code"); cv != nil && !goja.IsUndefined(cv) && !goja.IsNull(cv) && name != "ToolError" {
		if code := clip(cv.String(), 200); code != "" {
			foreignCode = code
			shown := strconv.Quote(code)
			switch n := cv.Export().(type) {
			case int64:
				foreignCode, shown = n, code
			case float64:
				if !math.IsNaN(n) && !math.IsInf(n, 0) {
					foreignCode, shown = n, code
				}
			}
			if !strings.Contains(message, code) {
				msg += " (code " + shown + ")"
			}
		}
	}
	if f := firstFrame(stack); f != "" {
		msg += " (at " + f + ")"
	}
	if name == "ReferenceError" {
		msg += hostGlobalHint(message)
	}
	if name == "ToolError" {
		// new aios.ToolError('NotAllowed', …): the code was dropped
		// without a word (the pipeline says so of a provider's unknown code).
		// Without one (new aios.ToolError(undefined, …), a constant
		// misspelt: ToolError.Notfound) nothing said what was wrong.
		codes := make([]string, len(abi.KnownCodes))
		for i, c := range abi.KnownCodes {
			codes[i] = string(c)
		}
		if code := str("code"); code != "" {
			msg += fmt.Sprintf(" (error code %q is not one of the ABI's: %s)", cutText(code), strings.Join(codes, ", "))
		} else {
			msg += fmt.Sprintf(" (the ToolError has no error code: new aios.ToolError(code, message, data) takes one of the ABI's: %s)", strings.Join(codes, ", "))
		}
	}
	data := map[string]any{}
	if ownName {
		data["name"] = name
	}
	if foreignCode != nil {
		data["code"] = foreignCode
	}
	if depth < maxCauseDepth {
		// new Error('saving failed', { cause: err }) said "Error: saving
		// failed" and nothing of err: the cause is named, as node prints
		// it, and its own cause after it.
		if c := o.Get("cause"); c != nil && !goja.IsUndefined(c) {
			ct := w.readThrown(c, nil, depth+1)
			msg += "; cause: " + listedText(ct)
			data["cause"] = map[string]any{"code": string(ct.Code), "message": ct.Message}
		}
	}
	if listed > 0 {
		noun := "errors"
		if listed == 1 {
			noun = "error"
		}
		msg += fmt.Sprintf("; its %d %s: %s", listed, noun, list.text)
		data["errors"] = list.data
	}
	te := &abi.ToolError{Code: abi.ProviderError, Message: msg}
	if stack != "" {
		data["stack"] = stack
	}
	if len(data) > 0 {
		te.Data = data
	}
	return te
}

// listedText is how an error inside another (its cause, an
// AggregateError's item) is named: "Code: message" (the code left out
// when it is ProviderError), cut at maxListedError bytes.
func listedText(te *abi.ToolError) string {
	text := te.Message
	if te.Code != abi.ProviderError {
		text = string(te.Code) + ": " + text
	}
	return clip(text, maxListedError)
}

type listedErrors struct {
	text string
	data []any
}

// listErrors names the errors of an Error object's `errors` array (an
// AggregateError's): "[0] NotFound: …; [1] TypeError: … (at f.ts:3:9)",
// at most maxListedErrors of them, and gives each one's code and message
// for the error's data. n is how many the array holds, 0 when o has none.
func (w *worker) listErrors(o *goja.Object, depth int) (listedErrors, int) {
	if o.ClassName() != "Error" {
		return listedErrors{}, 0
	}
	ev, ok := o.Get("errors").(*goja.Object)
	if !ok || ev.ClassName() != "Array" {
		return listedErrors{}, 0
	}
	n := int(ev.Get("length").ToInteger())
	if n <= 0 {
		return listedErrors{}, 0
	}
	var b strings.Builder
	var data []any
	for i := 0; i < n && i < maxListedErrors; i++ {
		e := ev.Get(strconv.Itoa(i))
		if e == nil {
			e = goja.Undefined()
		}
		te := w.readThrown(e, nil, depth+1)
		text := listedText(te)
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "[%d] %s", i, text)
		data = append(data, map[string]any{"code": string(te.Code), "message": te.Message})
	}
	if n > maxListedErrors {
		fmt.Fprintf(&b, "; and %d more", n-maxListedErrors)
	}
	return listedErrors{text: b.String(), data: data}, n
}

// describe renders a thrown non-Error value for a message.
func describe(v goja.Value) string {
	if v == nil {
		return "undefined"
	}
	if goja.IsString(v) {
		return fmt.Sprintf("%q", cutText(v.String()))
	}
	// A Symbol's String is its description, a BigInt's its digits: they
	// read as an unquoted string and a number (TestThrownSymbolAndBigIntNamed).
	if s, ok := v.(*goja.Symbol); ok {
		return clip("Symbol("+s.String()+")", 200)
	}
	if goja.IsBigInt(v) {
		return clip(v.String(), 200) + "n"
	}
	return clip(v.String(), 200)
}

// clip cuts s to at most n bytes (a whole UTF-8 sequence at its end) and
// marks the cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// describeObject renders a thrown object that is no Error and has no
// message: a plain object or array as its JSON (throw {status: 404,
// reason: 'missing'} said "uncaught [object Object]"), cut as describe
// cuts; anything else, or one JSON cannot carry, as a log line shows it
// (a Map or a Set by what it holds, a cycle as "[Circular]": they said
// "[object Map]" and "[object Object]"), else as its string.
func (w *worker) describeObject(o *goja.Object) string {
	if c := o.ClassName(); c == "Object" || c == "Array" {
		ex := exporter{vm: w.vm, limit: 64 << 10}
		if d, _, err := ex.export(o); err == nil {
			if b, err := json.Marshal(d); err == nil {
				return clip(string(b), 200)
			}
		}
	}
	if w.internal == nil {
		return describe(o)
	}
	if show, ok := goja.AssertFunction(w.internal.Get("show")); ok {
		if s, err := show(goja.Undefined(), o); err == nil {
			return clip(s.String(), 200)
		}
	}
	return describe(o)
}

// crashed is the ToolError for a Go panic inside the runtime.
func crashed(r any) *abi.ToolError {
	return &abi.ToolError{Code: abi.ProviderCrashed, Message: fmt.Sprintf("JS runtime panicked: %v", r)}
}

// nodeGlobals are globals of node or a browser that code written for them
// reaches for, with what a JS tool has instead.
var nodeGlobals = map[string]string{
	"fetch":          "no network API (ctx.callTool reaches tools that have one)",
	"XMLHttpRequest": "no network API (ctx.callTool reaches tools that have one)",
	"WebSocket":      "no network API (ctx.callTool reaches tools that have one)",
	"process":        "no environment (give settings as params)",
	"require":        "import instead: 'aios-sdk' and the plugin's own files",
	"module":         "import and export instead of module.exports",
	"exports":        "import and export instead of module.exports",
	"__dirname":      "no file system",
	"__filename":     "no file system",
	"Buffer":         "Uint8Array instead",
	"window":         "no DOM",
	"document":       "no DOM",
	// Browser and node globals past ECMAScript that goja lacks too: they
	// failed "X is not defined" and nothing more.
	"global":          "globalThis instead",
	"setInterval":     "setTimeout instead, armed again in its callback (timers live only while the call runs)",
	"clearInterval":   "setTimeout and clearTimeout instead",
	"setImmediate":    "setTimeout(fn, 0) or queueMicrotask instead",
	"TextEncoder":     "ctx.spaces.write(space, text) stores a string as UTF-8",
	"TextDecoder":     "ctx.spaces.read gives UTF-8 text as a string",
	"structuredClone": "JSON.parse(JSON.stringify(x)) copies a JSON value",
	"crypto":          "no random UUIDs or digests (Math.random is not cryptographic; ctx.callTool reaches tools that have them)",
	"atob":            "no base64 built-in: encode bytes with a few lines of your own, or store them with ctx.spaces.write",
	"btoa":            "no base64 built-in: encode bytes with a few lines of your own, or store them with ctx.spaces.write",
	"URL":             "no URL parser (encodeURIComponent and decodeURIComponent exist)",
	"URLSearchParams": "no URL parser (encodeURIComponent and decodeURIComponent exist)",
	"performance":     "Date.now() instead",
	"Intl":            "no locale data: toLocaleString ignores its locale and options",
	"navigator":       "no DOM",
	"localStorage":    "no storage but ctx.spaces",
	"sessionStorage":  "no storage but ctx.spaces",
	"AbortController": "no network API; a call's deadline is ctx.call.deadline",
	"MessageChannel":  "setTimeout or queueMicrotask instead",
	"Worker":          "no threads: one call runs on one runtime",
	"WebAssembly":     "no WebAssembly API: ctx.callTool reaches the host's WASM tools",
	"EventTarget":     "no DOM",
	"Blob":            "Uint8Array instead, stored with ctx.spaces.write",
	"FormData":        "no network API (ctx.callTool reaches tools that have one)",
	"Headers":         "no network API (ctx.callTool reaches tools that have one)",
	"Request":         "no network API (ctx.callTool reaches tools that have one)",
	"Response":        "no network API (ctx.callTool reaches tools that have one)",
}

// hostGlobalHint explains "X is not defined" for a node or browser global
// X: a tool written for node failed "ReferenceError: fetch is not defined"
// and nothing more. "" for other names.
func hostGlobalHint(message string) string {
	g, ok := strings.CutSuffix(message, " is not defined")
	if !ok {
		return ""
	}
	alt, ok := nodeGlobals[g]
	if !ok {
		return ""
	}
	return fmt.Sprintf("; JS tools run on goja, not node or a browser: no %s, %s; the globals besides ECMAScript's are aios, console, setTimeout/clearTimeout and queueMicrotask (docs/js.md)", g, alt)
}
