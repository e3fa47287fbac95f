package native

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/Masterminds/semver/v3"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/panicstack"
	"github.com/aios-host/aios-host/registry"
)

// Handler serves one call of a native tool. params is the call's params in
// canonical form (see abi.Normalize), already validated against the tool's
// schema by the host. The result must be a value abi.Normalize accepts.
type Handler func(ctx context.Context, params any, env abi.Env) (any, error)

type tool struct {
	def abi.ToolDef
	h   Handler
}

// table is the immutable lookup structure swapped in by Register. A
// name's versions are in recent if it has them there, else in byName:
// Register copies recent, small, and merges it into a new byName only
// when it has grown past the square root of byName's size. Copying the
// whole map at each Register was quadratic (10 000 tools: 10 s).
type table struct {
	byName map[string][]*tool
	recent map[string][]*tool
	reg    *abi.ToolRegister
}

// versions are the registered versions of name.
func (t *table) versions(name string) []*tool {
	if l, ok := t.recent[name]; ok {
		return l
	}
	return t.byName[name]
}

// Provider is a set of in-process Go tools. It implements abi.Provider.
// A zero Provider is an empty one with no identity; New gives it one.
// Register tools before handing the provider to the host; Register is safe
// to call concurrently with Call, but the host only learns of tools
// registered later when it reloads the provider.
type Provider struct {
	info abi.ProviderInfo
	mu   sync.Mutex // serializes Register, OnClose and Close's flag
	tab  atomic.Pointer[table]
	// defs are the tools' definitions; each table's reg.Tools is the
	// part of it registered then, capped at its length (appends made
	// later write past it).
	defs    []abi.ToolDef
	closed  atomic.Bool
	onClose []func() error
}

// New returns an empty provider. info.Runtime is set to "native" and
// info.ID is checked by the host when the provider is added.
func New(info abi.ProviderInfo) *Provider {
	info.Runtime = abi.RuntimeNative
	info.Capabilities = append([]string(nil), info.Capabilities...)
	p := &Provider{info: info}
	p.tab.Store(&table{byName: map[string][]*tool{}, reg: &abi.ToolRegister{Format: abi.FormatVersion, Provider: info}})
	return p
}

// table returns the provider's tool table; a zero Provider (not made
// with New) has an empty one.
func (p *Provider) table() *table {
	if t := p.tab.Load(); t != nil {
		return t
	}
	return &table{reg: &abi.ToolRegister{Format: abi.FormatVersion, Provider: p.info}}
}

// Info returns the provider's identity.
func (p *Provider) Info() abi.ProviderInfo { return p.info }

// Register adds a tool. It refuses an invalid tool name, a nil handler and a
// second tool with the same name and version (as the registry counts
// versions: no version is 1.0.0, 1.0.0+a is 1.0.0+b), and a version that is
// not strict SemVer ("1.0", "v1.2.0"), naming the tool.
func (p *Provider) Register(def abi.ToolDef, h Handler) error {
	if err := abi.ValidateToolName(def.Name); err != nil {
		return fmt.Errorf("provider %s: %w", p.info.ID, err)
	}
	if h == nil {
		return fmt.Errorf("provider %s: tool %q has a nil handler", p.info.ID, def.Name)
	}
	if def.Version != "" {
		// As the registry reads it; refused here, where the author wrote
		// it, not when the host adds the whole provider.
		if _, err := semver.StrictNewVersion(def.Version); err != nil {
			return fmt.Errorf("provider %s: tool %q: version %q is not a strict SemVer version (want MAJOR.MINOR.PATCH such as 1.2.0): %v", p.info.ID, def.Name, def.Version, err)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	old := p.table()
	for _, t := range old.versions(def.Name) {
		if t.def.Version == def.Version {
			return fmt.Errorf("provider %s: tool %q version %q is registered twice", p.info.ID, def.Name, def.Version)
		}
		// One version to the registry, which refused the provider when
		// the host added it, far from the line that registered it.
		if versionKey(t.def.Version) == versionKey(def.Version) {
			return fmt.Errorf("provider %s: tool %q version %q is registered twice: versions %q and %q are one (no version is %s, the registry's default; build metadata makes no other version)",
				p.info.ID, def.Name, versionKey(def.Version), t.def.Version, def.Version, registry.DefaultVersion)
		}
	}
	nt := &table{byName: old.byName, recent: make(map[string][]*tool, len(old.recent)+1)}
	for k, v := range old.recent {
		nt.recent[k] = v
	}
	nt.recent[def.Name] = append(append([]*tool(nil), old.versions(def.Name)...), &tool{def: def, h: h})
	if len(nt.recent)*len(nt.recent) > len(nt.byName) {
		merged := make(map[string][]*tool, len(nt.byName)+len(nt.recent))
		for k, v := range nt.byName {
			merged[k] = v
		}
		for k, v := range nt.recent {
			merged[k] = v
		}
		nt.byName, nt.recent = merged, nil
	}
	p.defs = append(p.defs, def)
	reg := &abi.ToolRegister{Format: abi.FormatVersion, Provider: p.info}
	reg.Tools = p.defs[:len(p.defs):len(p.defs)]
	nt.reg = reg
	p.tab.Store(nt)
	return nil
}

// versionKey is the version v is to the registry: no version is its
// default, and build metadata is not compared.
func versionKey(v string) string {
	if v == "" {
		return registry.DefaultVersion
	}
	v, _, _ = strings.Cut(v, "+")
	return v
}

// MustRegister is Register for tool definitions written as literals in
// code; it panics on error, which is a programming mistake.
func (p *Provider) MustRegister(def abi.ToolDef, h Handler) {
	if err := p.Register(def, h); err != nil {
		panic(err)
	}
}

// OnClose adds a function that Close runs (in registration order). Added
// once the provider is closed (by a handler still running when the host
// removed it), it runs at once, in OnClose; its error then has no Close
// to return it and is dropped. Each function runs once; one that panics
// is an error of Close, and the others still run. A nil fn is ignored.
func (p *Provider) OnClose(fn func() error) {
	if fn == nil {
		return
	}
	p.mu.Lock()
	if !p.closed.Load() {
		p.onClose = append(p.onClose, fn)
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	_ = p.runOnClose(0, fn)
}

// Describe implements abi.Provider. The returned message is shared; callers
// must not modify it.
func (p *Provider) Describe() *abi.ToolRegister { return p.table().reg }

// Close implements abi.Provider: later calls fail with Unavailable; calls in
// flight finish.
func (p *Provider) Close() error {
	// closed is set under mu: an OnClose after this sees it and runs
	// its function itself; one before has it in fns.
	p.mu.Lock()
	if p.closed.Swap(true) {
		p.mu.Unlock()
		return nil
	}
	fns := p.onClose
	p.onClose = nil
	p.mu.Unlock()
	var errs []error
	for i, fn := range fns {
		if err := p.runOnClose(i, fn); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// runOnClose runs fn, the i-th function of OnClose, turning its panic
// into an error: the functions after it still run.
func (p *Provider) runOnClose(i int, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("provider %s: OnClose function %d panicked: %v", p.info.ID, i+1, r)
		}
	}()
	return fn()
}

// lookup finds the tool for a call. The host passes the exact version it
// resolved in call.Version; with one version of a name registered, the
// version is not compared.
func (t *table) lookup(name, version string) *tool {
	list := t.versions(name)
	switch {
	case len(list) == 1:
		return list[0]
	case len(list) == 0:
		return nil
	}
	for _, tl := range list {
		// A tool declared without a version is registered as the
		// default one, which is what the host calls.
		if v := tl.def.Version; v == version || (v == "" && version == registry.DefaultVersion) {
			return tl
		}
	}
	if version == "" {
		return list[len(list)-1]
	}
	return nil
}

// Call implements abi.Provider.
func (p *Provider) Call(ctx context.Context, call *abi.ToolCall, env abi.Env) (res any, err error) {
	if call == nil {
		return nil, abi.NilCall(p)
	}
	if p.closed.Load() {
		return nil, &abi.ToolError{Code: abi.Unavailable, Message: "provider " + p.info.ID + " is closed"}
	}
	t := p.table().lookup(call.Tool, call.Version)
	if t == nil {
		return nil, &abi.ToolError{Code: abi.NotFound, Message: "provider " + p.info.ID + " has no tool " + strconv.Quote(call.Tool) + " version " + strconv.Quote(call.Version)}
	}
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, crashError(p.info.ID, call.Tool, r)
		}
	}()
	res, err = t.h(ctx, call.Params, env)
	if err != nil {
		return nil, handlerError(ctx, err, p.info.ID, call)
	}
	return res, nil
}

// handlerError is convertError of a handler's error, whose Error method
// may panic (a nil *T of the tool's own error type returned as the error,
// which Go does not count as a nil error): that is a ProviderError saying
// so, as the Go guest SDK says it, not the tool's panic (ProviderCrashed
// with the host's frames as its stack).
func handlerError(ctx context.Context, err error, provider string, call *abi.ToolCall) (te *abi.ToolError) {
	defer func() {
		if r := recover(); r != nil {
			msg := fmt.Sprintf("tool %s of provider %s: the handler's error (a %T): its Error method panicked: %v", call.Tool, provider, err, r)
			if v := reflect.ValueOf(err); v.Kind() == reflect.Pointer && v.IsNil() {
				msg += fmt.Sprintf(" (a nil %T returned as the error is not a nil error: return a literal nil, or declare the variable as error)", err)
			}
			te = &abi.ToolError{Code: abi.ProviderError, Message: strings.ToValidUTF8(msg, "\uFFFD")}
		}
	}()
	te = convertError(ctx, err, provider, call)
	if te != nil && te.Data != nil && !abi.IsCanonical(te.Data) {
		// Bytes in it by encoding/json's rule, base64, as a struct's
		// are and a Go guest's *aios.Error data is: the host drops
		// data holding raw bytes. Neither te nor its maps are changed.
		c := *te
		c.Data = bytesAsJSON(abi.Copy(te.Data), 0)
		te = &c
	}
	if te != nil && !abi.ValidUTF8(te.Message) {
		// Bytes that are not text (an os error naming a Latin-1 file)
		// as a WASM guest's message is read (abi.ValidText): written
		// as JSON they would be U+FFFD, not what a Go caller got.
		c := *te
		c.Message = abi.ValidText(te.Message)
		te = &c
	}
	return te
}

// convertError maps a handler's error onto the ABI codes. A deadline or
// cancel names the tool and provider: the context's own words ("context
// deadline exceeded") name neither, and through nested calls the caller
// could not tell which tool ran out of time.
func convertError(ctx context.Context, err error, provider string, call *abi.ToolCall) *abi.ToolError {
	var te *abi.ToolError
	if errors.As(err, &te) {
		if te == nil || error(te) == err {
			return te // a nil one the host names (TestNilToolErrorFromHandlerNamesTool)
		}
		// Wrapped (fmt.Errorf("fetching thumbnails: %w", err)): the
		// inner code and data, the handler's words around the inner
		// message, as the Go guest SDK sends them.
		full, msg := err.Error(), err.Error()
		if i := strings.LastIndex(full, te.Error()); i >= 0 {
			msg = full[:i] + te.Message + full[i+len(te.Error()):]
		}
		return &abi.ToolError{Code: te.Code, Message: msg, Data: te.Data}
	}
	tool := call.Tool
	if call.Version != "" {
		tool += "@" + call.Version
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &abi.ToolError{Code: abi.Timeout, Message: "tool " + tool + " of provider " + provider + " stopped at its deadline: " + err.Error()}
	}
	if errors.Is(err, context.Canceled) {
		return &abi.ToolError{Code: abi.Cancelled, Message: "tool " + tool + " of provider " + provider + " stopped, its caller having cancelled: " + err.Error()}
	}
	return abi.AsToolError(err, abi.ProviderError)
}

// crashError builds the ProviderCrashed error for a recovered panic, with
// the panic value and the stack of the panicking code (runtime frames and
// this package's own frames left out).
func crashError(provider, toolName string, r any) *abi.ToolError {
	// Text that is not UTF-8 would have the host drop the data, the
	// stack with it.
	msg := strings.ToValidUTF8(fmt.Sprint(r), "\uFFFD")
	stack := panicstack.Format(2, func(fn string) (skip, stop bool) { // past crashError and Call's recover
		return strings.HasPrefix(fn, "github.com/aios-host/aios-host/runtimes/native.Typed["), // its wrapper
			strings.HasPrefix(fn, "github.com/aios-host/aios-host/runtimes/native.(*Provider).Call")
	})
	return &abi.ToolError{
		Code:    abi.ProviderCrashed,
		Message: "tool " + toolName + " of provider " + provider + " panicked: " + msg,
		Data:    map[string]any{"panic": msg, "stack": stack},
	}
}
