package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
)

// fakeLoader loads ".fake" files: JSON {"id", "version", "tools": [...],
// "sleep_ms"}. Its tools echo params.value together with the file's version;
// "slow" sleeps sleep_ms first. A call after Close fails, so tests notice
// a provider closed under a running call.
type fakeLoader struct {
	loads  atomic.Int64
	loaded sync.Map // provider ids loaded so far

	mu   sync.Mutex
	made []*fakeProvider // every provider loaded, in order

	// beforeRead, when set, is called with the file's path as a load
	// begins, before the file is read.
	beforeRead atomic.Pointer[func(path string)]
}

// open lists the providers loaded and not closed, as "id@version".
func (l *fakeLoader) open() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, p := range l.made {
		if !p.closed.Load() {
			out = append(out, p.spec.ID+"@"+p.spec.Version)
		}
	}
	return out
}

// madeOf lists the providers of id loaded so far, in order.
func (l *fakeLoader) madeOf(id string) []*fakeProvider {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []*fakeProvider
	for _, p := range l.made {
		if p.spec.ID == id {
			out = append(out, p)
		}
	}
	return out
}

type fakeSpec struct {
	ID      string   `json:"id"`
	Version string   `json:"version"`
	Tools   []string `json:"tools"`
	SleepMS int      `json:"sleep_ms"`
	// ToolVersion is the version of the tools (Version when empty).
	ToolVersion string `json:"tool_version,omitempty"`
	// WaitFor makes the load wait (up to 10 s) until the provider of
	// that id has been loaded: a load that can only finish beside another.
	WaitFor string `json:"wait_for,omitempty"`
	// LoadMS makes the load itself take this long (a runtime slow to start).
	LoadMS int `json:"load_ms,omitempty"`
	// CloseErr makes Close fail with this message.
	CloseErr string `json:"close_err,omitempty"`
	// ClosePanic makes Close panic with this message.
	ClosePanic string `json:"close_panic,omitempty"`
	// CloseHangs makes Close block until closeRelease is closed.
	CloseHangs bool `json:"close_hangs,omitempty"`
}

// closeRelease ends the Close of every provider with CloseHangs.
var closeRelease = make(chan struct{})

func (*fakeLoader) Runtime() string      { return "fake" }
func (*fakeLoader) Extensions() []string { return []string{".fake"} }
func (l *fakeLoader) Load(_ context.Context, src abi.Source) (abi.Provider, error) {
	if f := l.beforeRead.Load(); f != nil {
		(*f)(src.Path)
	}
	data, err := os.ReadFile(src.Path)
	if err != nil {
		return nil, err
	}
	var s fakeSpec
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("bad fake provider: %w", err)
	}
	if s.WaitFor != "" {
		deadline := time.Now().Add(10 * time.Second)
		for _, ok := l.loaded.Load(s.WaitFor); !ok; _, ok = l.loaded.Load(s.WaitFor) {
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("%s was not loaded while %s waited for it", s.WaitFor, s.ID)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if s.LoadMS > 0 {
		time.Sleep(time.Duration(s.LoadMS) * time.Millisecond)
	}
	l.loads.Add(1)
	l.loaded.Store(s.ID, true)
	reg := &abi.ToolRegister{Format: abi.FormatVersion, Provider: abi.ProviderInfo{ID: s.ID, Version: s.Version, Runtime: "fake"}}
	tv := s.Version
	if s.ToolVersion != "" {
		tv = s.ToolVersion
	}
	for _, t := range s.Tools {
		reg.Tools = append(reg.Tools, abi.ToolDef{Name: t, Description: "fake " + t, Version: tv,
			Parameters: map[string]any{"type": "object"}})
	}
	p := &fakeProvider{reg: reg, spec: s, src: src}
	l.mu.Lock()
	l.made = append(l.made, p)
	l.mu.Unlock()
	return p, nil
}

type fakeProvider struct {
	reg    *abi.ToolRegister
	spec   fakeSpec
	src    abi.Source
	closed atomic.Bool
	calls  atomic.Int64
}

func (p *fakeProvider) Describe() *abi.ToolRegister { return p.reg }
func (p *fakeProvider) Call(ctx context.Context, call *abi.ToolCall, _ abi.Env) (any, error) {
	if p.closed.Load() {
		return nil, abi.Errorf(abi.Internal, "fake provider %s@%s called after Close", p.spec.ID, p.spec.Version)
	}
	p.calls.Add(1)
	if call.Tool == "slow" && p.spec.SleepMS > 0 {
		select {
		case <-time.After(time.Duration(p.spec.SleepMS) * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if p.closed.Load() {
			return nil, abi.Errorf(abi.Internal, "fake provider %s closed during a call", p.spec.ID)
		}
	}
	var v any
	if m, ok := call.Params.(map[string]any); ok {
		v = m["value"]
	}
	return map[string]any{"value": v, "version": p.spec.Version}, nil
}
func (p *fakeProvider) Close() error {
	p.closed.Store(true)
	if p.spec.ClosePanic != "" {
		panic(p.spec.ClosePanic)
	}
	if p.spec.CloseHangs {
		<-closeRelease
	}
	if p.spec.CloseErr != "" {
		return errors.New(p.spec.CloseErr)
	}
	return nil
}

func writeFake(t testing.TB, path string, s fakeSpec) {
	t.Helper()
	b, _ := json.Marshal(s)
	// Write then rename, the way an installer should.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

type testEnv struct {
	h    *host.Host
	d    *Discovery
	dir  string
	cfg  *config.Config
	load *fakeLoader
}

func newEnv(t testing.TB, discoveryYAML string, prepare func(dir string)) *testEnv {
	t.Helper()
	return newEnvWith(t, discoveryYAML, prepare, nil)
}

// newEnvWith is newEnv with a last word on discovery's Options.
func newEnvWith(t testing.TB, discoveryYAML string, prepare func(dir string), opts func(*Options)) *testEnv {
	t.Helper()
	return newEnvTop(t, nil, discoveryYAML, prepare, opts)
}

// newEnvTop is newEnvWith with more top-level config (top is given the
// plugin folder).
func newEnvTop(t testing.TB, top func(plugins string) string, discoveryYAML string, prepare func(dir string), opts func(*Options)) *testEnv {
	t.Helper()
	dir := t.TempDir()
	plugins := filepath.Join(dir, "plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(plugins)
	}
	doc := "plugins: [" + plugins + "]\ndata: " + filepath.Join(dir, "data") + "\naudit: {disabled: true}\n" +
		"rate_limits: {global: {per_second: 1000000000, burst: 1000000000}}\n" +
		topYAML(top, plugins) +
		"discovery:\n  dirs: []\n" + indent(discoveryYAML)
	cfg, err := config.Parse([]byte(doc), filepath.Join(dir, "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fl := &fakeLoader{}
	h, err := host.New(host.Options{Config: cfg, Loaders: []abi.Loader{fl}})
	if err != nil {
		t.Fatal(err)
	}
	var log *slog.Logger
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	o := Options{Host: h, Config: cfg, Logger: log}
	if opts != nil {
		opts(&o)
	}
	d, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = d.Close()
		_ = h.Close()
	})
	return &testEnv{h: h, d: d, dir: plugins, cfg: cfg, load: fl}
}

func (e *testEnv) call(tool string, value any) (map[string]any, error) {
	v, err := e.h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: tool, Params: map[string]any{"value": value}})
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	return m, nil
}

func indent(y string) string {
	if !strings.Contains(y, "desktop_dirs") {
		y = "desktop_dirs: []\n" + y
	}
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(y, "\n"), "\n") {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

func topYAML(top func(string) string, plugins string) string {
	if top == nil {
		return ""
	}
	return strings.TrimRight(top(plugins), "\n") + "\n"
}
