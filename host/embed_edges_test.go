package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/runtimes/native"
)

// panicOnClose is a provider whose Close panics (an embedder's bug).
type panicOnClose struct{ *native.Provider }

func (panicOnClose) Close() error { panic("close boom") }

// A provider whose Close panicked took Host.Close down with it: the panic
// reached the embedder, the providers after it were not closed, the audit
// log was not flushed, and a second Close returned nil as if all had been
// done. RemoveProvider and ReplaceProvider panicked the same way. The host
// recovers Load and Call panics; Close panics now become errors too.
func TestProviderClosePanic(t *testing.T) {
	newP := func(id string) *native.Provider {
		p := native.New(abi.ProviderInfo{ID: id})
		p.MustRegister(abi.ToolDef{Name: strings.ReplaceAll(id, ".", "-"), Version: "1.0.0"},
			func(ctx context.Context, params any, env abi.Env) (any, error) { return 1, nil })
		return p
	}
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, id := range []string{"org.x.a", "org.x.b"} {
		if err := h.AddProvider(ctx, panicOnClose{newP(id)}, ProviderMeta{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.RemoveProvider("org.x.a"); err == nil || !strings.Contains(err.Error(), "close boom") {
		t.Fatalf("RemoveProvider of a provider whose Close panics: %v, want an error naming the panic", err)
	}
	if err := h.ReplaceProvider(ctx, newP("org.x.b"), ProviderMeta{}); err != nil {
		t.Fatalf("ReplaceProvider over a provider whose Close panics: %v", err)
	}
	if err := h.AddProvider(ctx, panicOnClose{newP("org.x.c")}, ProviderMeta{}); err != nil {
		t.Fatal(err)
	}
	other := newP("org.x.d")
	if err := h.AddProvider(ctx, other, ProviderMeta{}); err != nil {
		t.Fatal(err)
	}
	err = h.Close()
	if err == nil || !strings.Contains(err.Error(), "org.x.c") || !strings.Contains(err.Error(), "close boom") {
		t.Fatalf("Close: %v, want an error naming org.x.c and its panic", err)
	}
	if _, err := other.Call(ctx, &abi.ToolCall{Tool: "org-x-d"}, nil); abi.CodeOf(err) != abi.Unavailable {
		t.Fatalf("a provider after the panicking one was not closed: its call answered %v", err)
	}
}

// Host.Close closed the audit log without waiting for the calls in
// flight: a call that ended after Close had run, and returned its result
// to its caller, had no audit record (audit.Writer.Log after Close drops
// it, counted by Dropped only). Close now waits for the calls in flight
// (bounded) before it closes the audit log.
func TestCloseKeepsRecordOfCallInFlight(t *testing.T) {
	aw, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"), audit.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h, err := New(Options{Audit: aw})
	if err != nil {
		t.Fatal(err)
	}
	entered, release := make(chan struct{}), make(chan struct{})
	p := native.New(abi.ProviderInfo{ID: "org.x.slow"})
	p.MustRegister(abi.ToolDef{Name: "slow", Version: "1.0.0"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		close(entered)
		<-release
		return "done", nil
	})
	if err := h.AddProvider(context.Background(), p, ProviderMeta{Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	res := make(chan error, 1)
	go func() {
		_, err := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: "slow"})
		res <- err
	}()
	<-entered
	closed := make(chan error, 1)
	go func() { closed <- h.Close() }()
	// Release the handler once Close has returned (Close did not wait) or
	// a moment later (Close waits): either way the call ends.
	select {
	case err := <-closed:
		closed <- err
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-res; err != nil {
		t.Fatalf("the call in flight: %v", err)
	}
	if err := <-closed; err != nil {
		t.Fatalf("Close: %v", err)
	}
	if n := aw.Dropped(); n != 0 {
		t.Fatalf("%d audit record(s) dropped: the call in flight at Close has no record", n)
	}
}

// probeCounted counts its Close calls.
type probeCounted struct {
	*native.Provider
	closes *atomic.Int32
}

func (c probeCounted) Close() error {
	c.closes.Add(1)
	return c.Provider.Close()
}

// Calls, registrations, removals and Close at once, with a registry
// subscriber that never reads: no panic, race or hang, every call answers
// a *abi.ToolError or a result, and every provider is closed exactly once
// (by the host, or by the test when the host refused it). No defect.
func TestConcurrentLifecycle(t *testing.T) {
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, unsub := h.Registry().Subscribe(1) // never read
	defer unsub()
	ctx := context.Background()
	const n = 40
	closes := make([]atomic.Int32, n)
	mk := func(i int) probeCounted {
		p := native.New(abi.ProviderInfo{ID: fmt.Sprintf("org.x.p%d", i%8)})
		p.MustRegister(abi.ToolDef{Name: fmt.Sprintf("t%d", i%8), Version: "1.0.0"},
			func(ctx context.Context, params any, env abi.Env) (any, error) { return i, nil })
		return probeCounted{p, &closes[i]}
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			p := mk(i)
			var err error
			if i%3 == 0 {
				err = h.ReplaceProvider(ctx, p, ProviderMeta{})
			} else {
				err = h.AddProvider(ctx, p, ProviderMeta{})
			}
			if err != nil {
				_ = p.Close() // refused: still ours
			}
			_, cerr := h.Call(ctx, &abi.ToolCall{Caller: "cli", Tool: fmt.Sprintf("t%d", i%8)})
			if cerr != nil {
				if _, ok := cerr.(*abi.ToolError); !ok {
					t.Errorf("call error %T %v is not a *abi.ToolError", cerr, cerr)
				}
			}
			if i%5 == 0 {
				_ = h.RemoveProvider(fmt.Sprintf("org.x.p%d", i%8))
			}
			if i == n/2 {
				if err := h.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}
		})
	}
	wg.Wait()
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range closes {
		if c := closes[i].Load(); c != 1 {
			t.Errorf("provider %d closed %d times, want 1", i, c)
		}
	}
}

// nilLoader is an embedder's loader with a bug: no provider, no error.
type nilLoader struct{}

func (nilLoader) Runtime() string      { return "nilrt" }
func (nilLoader) Extensions() []string { return []string{".nilp"} }
func (nilLoader) Load(context.Context, abi.Source) (abi.Provider, error) {
	return nil, nil
}

// A loader that returned neither a provider nor an error made LoadFile
// panic (it closed the nil provider AddProvider refused) and LoadProvider
// return (nil, nil), which its callers (discovery) then used. Both now
// fail naming the file and the loader.
func TestLoaderNilProvider(t *testing.T) {
	h, err := New(Options{Loaders: []abi.Loader{nilLoader{}}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	f := filepath.Join(t.TempDir(), "a.nilp")
	if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := h.LoadProvider(context.Background(), f, ProviderMeta{})
	if p != nil || err == nil || !strings.Contains(err.Error(), f) || !strings.Contains(err.Error(), "nilrt") {
		t.Fatalf("LoadProvider: %v, %v; want an error naming the file and the loader", p, err)
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				t.Fatalf("LoadFile panicked: %v", r)
			}
		}()
		if _, err := h.LoadFile(context.Background(), f, ProviderMeta{}); err == nil || !strings.Contains(err.Error(), f) {
			t.Fatalf("LoadFile: %v, want an error naming the file", err)
		}
	}()
}

// describePanics is a provider whose Describe panics; a typed nil
// provider's Describe panics the same way.
type describePanics struct{ reg *abi.ToolRegister }

func (d *describePanics) Describe() *abi.ToolRegister {
	if d.reg == nil {
		panic("describe boom")
	}
	return d.reg
}
func (*describePanics) Call(context.Context, *abi.ToolCall, abi.Env) (any, error) { return nil, nil }
func (*describePanics) Close() error                                              { return nil }

// AddProvider (and ReplaceProvider) handed the embedder the panic of a
// provider whose Describe panicked, a typed nil provider's included; the
// host recovers a loader's and a provider's other panics. It is now an
// InvalidRequest naming the source.
func TestDescribePanic(t *testing.T) {
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	for _, p := range []abi.Provider{&describePanics{}, (*describePanics)(nil)} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("AddProvider(%#v) panicked: %v", p, r)
				}
			}()
			err := h.AddProvider(context.Background(), p, ProviderMeta{Source: "embedder"})
			if abi.CodeOf(err) != abi.InvalidRequest || !strings.Contains(err.Error(), "embedder") {
				t.Fatalf("AddProvider(%#v): %v, want InvalidRequest naming the source", p, err)
			}
			err = h.ReplaceProvider(context.Background(), p, ProviderMeta{Source: "embedder"})
			if abi.CodeOf(err) != abi.InvalidRequest {
				t.Fatalf("ReplaceProvider(%#v): %v, want InvalidRequest", p, err)
			}
		}()
	}
}

// A nil loader in Options.Loaders (one a program left out conditionally)
// or given to AddLoader panicked; it is now an error.
func TestNilLoader(t *testing.T) {
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panicked: %v", r)
		}
	}()
	if _, err := New(Options{Loaders: []abi.Loader{nil}}); err == nil || !strings.Contains(err.Error(), "nil") {
		t.Fatalf("New with a nil loader: %v, want an error saying it is nil", err)
	}
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if err := h.AddLoader(nil); err == nil {
		t.Fatal("AddLoader(nil) succeeded")
	}
}

// A call whose context was already cancelled, or past its deadline, when
// it reached the pipeline answered only "context canceled" or "context
// deadline exceeded", naming neither the tool nor that it never started
// (a past call.Deadline said both). Both do now.
func TestDoneContextNamesTool(t *testing.T) {
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ran := false
	p := native.New(abi.ProviderInfo{ID: "org.x.ctx"})
	p.MustRegister(abi.ToolDef{Name: "ctxtool", Version: "1.0.0"}, func(ctx context.Context, params any, env abi.Env) (any, error) {
		ran = true
		return 1, nil
	})
	if err := h.AddProvider(context.Background(), p, ProviderMeta{}); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	past, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	for _, c := range []struct {
		ctx  context.Context
		code abi.ErrorCode
	}{{cancelled, abi.Cancelled}, {past, abi.Timeout}} {
		_, err := h.Call(c.ctx, &abi.ToolCall{Caller: "cli", Tool: "ctxtool"})
		if abi.CodeOf(err) != c.code || !strings.Contains(err.Error(), "ctxtool") || !strings.Contains(err.Error(), "before it started") {
			t.Errorf("call with a done context: %v, want %s naming the tool and saying it never started", err, c.code)
		}
	}
	if ran {
		t.Fatal("the handler ran")
	}
}
