package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/aios-host/aios-host/internal/testutil"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/js"
	"github.com/aios-host/aios-host/runtimes/wasm"
	"github.com/aios-host/aios-host/space"
)

// The JS and TS conformance providers are sources: they are transpiled at
// load, so nothing needs building.
//
// Rows js@process and ts@process run the same providers isolated in a
// worker process each (runtimes.js.isolation: process, the default for
// unsigned code under aios-host): every behaviour crosses the worker
// protocol, host calls included.
func init() {
	for _, f := range []struct{ runtime, file, isolation string }{
		{abi.RuntimeJS, "conformance.js", js.IsolationInProcess},
		{abi.RuntimeTS, "conformance.ts", js.IsolationInProcess},
		{abi.RuntimeJS, "conformance.js", js.IsolationProcess},
		{abi.RuntimeTS, "conformance.ts", js.IsolationProcess},
	} {
		row := f.runtime
		if f.isolation == js.IsolationProcess {
			row += "@process"
		}
		addFixture(fixture{
			Runtime: row,
			Load: func(t *testing.T) (abi.Provider, error) {
				rt := js.New(js.Options{Isolation: f.isolation})
				t.Cleanup(func() { _ = rt.Close() })
				for _, l := range rt.Loaders() {
					if l.Runtime() == f.runtime {
						return l.Load(context.Background(), abi.Source{Path: filepath.Join(testutil.RepoRoot(t), "samples", "js", f.file)})
					}
				}
				t.Fatalf("no %s loader", f.runtime)
				return nil, nil
			},
		})
	}
}

// newJSHost builds a host with the js/ts loaders, a space store, an audit
// log in a file, and the given inference URL ("" for none).
func newJSHost(t testing.TB, inferenceURL string) (*host.Host, *space.Store) {
	t.Helper()
	return newJSHostAudit(t, inferenceURL, true)
}

// newJSHostAudit is newJSHost with or without the audit log (benchmarks
// compare the two to see what the audit writer costs and how it scales).
func newJSHostAudit(t testing.TB, inferenceURL string, withAudit bool) (*host.Host, *space.Store) {
	t.Helper()
	return newJSHostOpts(t, inferenceURL, withAudit, js.Options{})
}

// newJSHostOpts is newJSHostAudit with the JS runtime's options.
func newJSHostOpts(t testing.TB, inferenceURL string, withAudit bool, opts js.Options) (*host.Host, *space.Store) {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Default()
	cfg.Data = dir
	cfg.Plugins = nil
	cfg.Agents = map[string]config.Agent{
		"bench": {Grants: []string{"CallTool(*)", "ReadSpace(*)", "WriteSpace(*)", "Inference"}, Rate: &config.Rate{PerSecond: 1e12, Burst: 1 << 30}},
	}
	cfg.RateLimits.Global = &config.Rate{PerSecond: 1e12, Burst: 1 << 30}
	cfg.Limits.DefaultDeadline = 10 * time.Second
	cfg.Inference.URL = inferenceURL
	cfg.Inference.Model = "test-model"
	st, err := space.Open(filepath.Join(dir, "spaces"))
	if err != nil {
		t.Fatal(err)
	}
	var aw *audit.Writer
	if withAudit {
		aw, err = audit.Open(filepath.Join(dir, "audit.jsonl"), audit.Options{})
		if err != nil {
			t.Fatal(err)
		}
	}
	rt := js.New(opts)
	h, err := host.New(host.Options{Config: cfg, Spaces: st, Audit: aw, Loaders: rt.Loaders()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = h.Close()
		_ = rt.Close()
	})
	registerBenchAudit(t, aw)
	return h, st
}

func loadFile(t testing.TB, h *host.Host, path string, trust abi.TrustLevel) {
	t.Helper()
	if _, err := h.LoadFile(context.Background(), path, host.ProviderMeta{Trust: trust}); err != nil {
		t.Fatal(err)
	}
}

// TestJSSummarizerPipeline runs the seed's Summarizer (samples/plugins/
// summarizer.ts, unchanged) through the whole host pipeline against an
// OpenAI-compatible chat-completions server.
func TestJSSummarizerPipeline(t *testing.T) {
	var got struct {
		Model     string `json:"model"`
		MaxTokens int    `json:"max_tokens"`
		Messages  []struct {
			Role, Content string
		} `json:"messages"`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "no such path "+r.URL.Path, http.StatusNotFound)
			return
		}
		if err := json.NewDecoder(r.Body).Decode(&got); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"x","object":"chat.completion","model":"test-model","choices":[{"index":0,"message":{"role":"assistant","content":"foxes jump over dogs"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	h, st := newJSHost(t, srv.URL)
	loadFile(t, h, filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "summarizer.ts"), abi.Community)
	id, err := st.Put("documents", []byte("The quick brown fox jumps over the lazy dog."))
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Call(context.Background(), &abi.ToolCall{Caller: "bench", Tool: "summarize", Params: map[string]any{"object_id": id, "max_words": int64(5)}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"summary": "foxes jump over dogs", "word_count": int64(4)}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("summarize = %#v, want %#v", res, want)
	}
	if got.Model != "test-model" || got.MaxTokens != 5 || len(got.Messages) == 0 ||
		!strings.Contains(got.Messages[len(got.Messages)-1].Content, "Summarize in 5 words: The quick brown fox") {
		t.Errorf("inference request = %+v", got)
	}

	// The capability check applies: a caller without ReadSpace(documents).
	_, err = h.Call(context.Background(), &abi.ToolCall{Caller: "stranger", Tool: "summarize", Params: map[string]any{"object_id": id}})
	if abi.CodeOf(err) != abi.CapabilityDenied {
		t.Errorf("stranger: want CapabilityDenied, got %v", err)
	}
}

// TestJSInferenceUnavailable: with no backend configured, ctx.ai.complete
// rejects with Unavailable and the message says how to configure one.
func TestJSInferenceUnavailable(t *testing.T) {
	h, st := newJSHost(t, "")
	loadFile(t, h, filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "summarizer.ts"), abi.Community)
	id, err := st.Put("documents", []byte("text"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Call(context.Background(), &abi.ToolCall{Caller: "bench", Tool: "summarize", Params: map[string]any{"object_id": id}})
	var te *abi.ToolError
	if !errors.As(err, &te) || te.Code != abi.Unavailable || !strings.Contains(te.Message, "inference.url") {
		t.Fatalf("want Unavailable saying how to configure inference, got %v", err)
	}
}

// TestJSCallsWASM is the cross-runtime demo: samples/plugins/thumbnail.js
// calls the WASM image-resize tool (build/wasm/image-resize.wasm) through
// the pipeline.
func TestJSCallsWASM(t *testing.T) {
	wasmPath, err := artifact(t, "wasm/image-resize.wasm")
	if err != nil {
		t.Fatal(err)
	}
	h, st := newJSHost(t, "")
	wl, err := wasm.NewLoader(wasm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = wl.Close() })
	wp, err := wl.Load(context.Background(), abi.Source{Path: wasmPath})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.AddProvider(context.Background(), wp, host.ProviderMeta{Source: wasmPath, Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	loadFile(t, h, filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "thumbnail.js"), abi.Community)

	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	for i := range img.Pix {
		img.Pix[i] = byte(i)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	id, err := st.Put("images", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.Call(context.Background(), &abi.ToolCall{Caller: "bench", Tool: "make-thumbnail", Params: map[string]any{"object_id": id, "size": int64(8)}})
	if err != nil {
		t.Fatal(err)
	}
	m := res.(map[string]any)
	out, _ := m["thumbnail_id"].(string)
	data, err := st.Get("images", out)
	if err != nil {
		t.Fatalf("thumbnail %q not in the images space: %v (result %v)", out, err, m)
	}
	thumb, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := thumb.Bounds(); b.Dx() != 8 || b.Dy() != 8 {
		t.Errorf("thumbnail is %dx%d, want 8x8", b.Dx(), b.Dy())
	}
	if m["original_size"] != int64(buf.Len()) || m["runtime_chain"] != "js -> wasm" {
		t.Errorf("result = %v", m)
	}
}

const benchEcho = `
const schema = { type: 'object', properties: { msg: { type: 'string' }, n: { type: 'integer' } }, required: ['msg', 'n'] };
aios.provider({ id: 'org.bench.js', capabilities: ['ReadSpace(source)'] });
aios.registerTool({ name: 'echo', parameters: schema, capabilityRequired: ['ReadSpace(source)'] }, (p) => p);
aios.registerTool({ name: 'echo-async', parameters: schema, capabilityRequired: ['ReadSpace(source)'] }, async (p) => p);
`

// benchPipelineJS runs tool through the whole pipeline (lookup, caps, rate
// limit, params schema, deadline, JS call, result check, audit to a file),
// params arriving as a canonical Go map {"msg":"hello","n":42}, from
// GOMAXPROCS callers at once (b.RunParallel: at -cpu 1 one caller), with a
// warm runtime in the pool for each, and reports cpu-ns/op (process CPU per
// call, audit writer and watchdog included) next to wall-clock ns/op (the
// machine is shared).
func benchPipelineJS(b *testing.B, tool string, withAudit bool) {
	runPipelineJS(b, newJSBenchHost(b, runtime.GOMAXPROCS(0), withAudit), tool)
}

// runPipelineJS is benchPipelineJS's measurement, on a host with the echo
// provider loaded.
func runPipelineJS(b *testing.B, h *host.Host, tool string) {
	ctx := context.Background()
	params := map[string]any{"msg": "hello", "n": int64(42)}
	wasmCPU(b, func() {
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			c := &abi.ToolCall{Caller: "bench", Tool: tool, Params: params}
			for pb.Next() {
				if _, err := h.Call(ctx, c); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// newJSBenchHost loads the echo provider into a JS host with warm runtimes
// in its pool (so that instantiation is not measured) and makes one call.
func newJSBenchHost(b *testing.B, warm int, withAudit bool) *host.Host {
	h, _ := newJSHostAudit(b, "", withAudit)
	p := loadBenchEcho(b, h, abi.System)
	jp, ok := p.(*js.Provider)
	if !ok {
		b.Fatalf("LoadFile returned %T, want *js.Provider", p)
	}
	if err := jp.Prewarm(warm); err != nil {
		b.Fatal(err)
	}
	if _, err := h.Call(context.Background(), &abi.ToolCall{Caller: "bench", Tool: "echo", Params: map[string]any{"msg": "hello", "n": int64(42)}}); err != nil {
		b.Fatal(err)
	}
	return h
}

// BenchmarkPipelineJSEchoSync: a sync JS handler through the full pipeline
// (GOMAXPROCS callers, the form the recorded figures use).
func BenchmarkPipelineJSEchoSync(b *testing.B) { benchPipelineJS(b, "echo", true) }

// BenchmarkPipelineJSEchoAsync: an async JS handler through the full pipeline.
func BenchmarkPipelineJSEchoAsync(b *testing.B) { benchPipelineJS(b, "echo-async", true) }

// BenchmarkPipelineJSEchoSyncParallel is the scaling benchmark: run it with
// -cpu 1,2; ns/op at -cpu 1 ÷ ns/op at -cpu 2 is the 2-core speed-up
// (GOMAXPROCS callers, a warm runtime each; the same shape as
// BenchmarkPipelineJSEchoSync, named for the check).
func BenchmarkPipelineJSEchoSyncParallel(b *testing.B) { benchPipelineJS(b, "echo", true) }

// BenchmarkPipelineJSEchoSyncParallelNoAudit is
// BenchmarkPipelineJSEchoSyncParallel on a host without an audit log: the
// difference is what the audit writer (one goroutine, serial) costs.
func BenchmarkPipelineJSEchoSyncParallelNoAudit(b *testing.B) { benchPipelineJS(b, "echo", false) }

// BenchmarkPipelineJSEchoSyncSerial is one caller whatever -cpu says: the
// latency of a call. At -cpu 2 the audit writer can use the second core,
// but each hand-off to and from the runtime's goroutine may also wake the
// idle one (wakep, futex), so it is not faster than at -cpu 1.
func BenchmarkPipelineJSEchoSyncSerial(b *testing.B) {
	h := newJSBenchHost(b, 1, true)
	ctx := context.Background()
	c := &abi.ToolCall{Caller: "bench", Tool: "echo", Params: map[string]any{"msg": "hello", "n": int64(42)}}
	wasmCPU(b, func() {
		for range b.N {
			if _, err := h.Call(ctx, c); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPipelineJSEchoSyncProcess is BenchmarkPipelineJSEchoSync with
// the provider isolated in a worker process (how aios-host runs unsigned
// JS by default): each call crosses the worker protocol both ways.
func BenchmarkPipelineJSEchoSyncProcess(b *testing.B) {
	h, _ := newJSHostOpts(b, "", true, js.Options{Isolation: js.IsolationUntrusted})
	p := loadBenchEcho(b, h, abi.Untrusted)
	if _, ok := p.(*js.ProcessProvider); !ok {
		b.Fatalf("LoadFile returned %T, want *js.ProcessProvider", p)
	}
	runPipelineJS(b, h, "echo")
}

// BenchmarkPipelineJSWireProcess is BenchmarkPipelineJSEchoSyncProcess
// in each wire format of the worker protocol (runtimes.js.wire): the
// default MessagePack against JSON, the debugging format.
func BenchmarkPipelineJSWireProcess(b *testing.B) {
	for _, wf := range []string{"msgpack", "json"} {
		b.Run(wf, func(b *testing.B) {
			h, _ := newJSHostOpts(b, "", true, js.Options{Isolation: js.IsolationUntrusted, Wire: wf})
			p := loadBenchEcho(b, h, abi.Untrusted)
			if pp, ok := p.(*js.ProcessProvider); !ok || pp.Wire() != wf {
				b.Fatalf("LoadFile returned %T, want a *js.ProcessProvider speaking %s", p, wf)
			}
			runPipelineJS(b, h, "echo")
		})
	}
}

// loadBenchEcho writes the echo provider to a file and loads it into h at
// trust.
func loadBenchEcho(b *testing.B, h *host.Host, trust abi.TrustLevel) abi.Provider {
	path := filepath.Join(b.TempDir(), "echo.js")
	if err := os.WriteFile(path, []byte(benchEcho), 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := h.LoadFile(context.Background(), path, host.ProviderMeta{Trust: trust})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkRawGojaEcho is the floor for the two above: the same function,
// `(p) => p`, called on a bare goja runtime with goja's own conversions
// (vm.ToValue of the params map, Export of the result), nothing else.
func BenchmarkRawGojaEcho(b *testing.B) {
	vm := goja.New()
	v, err := vm.RunString(`(p) => p`)
	if err != nil {
		b.Fatal(err)
	}
	fn, _ := goja.AssertFunction(v)
	params := map[string]any{"msg": "hello", "n": int64(42)}
	wasmCPU(b, func() {
		for range b.N {
			r, err := fn(goja.Undefined(), vm.ToValue(params))
			if err != nil {
				b.Fatal(err)
			}
			_ = r.Export()
		}
	})
}
