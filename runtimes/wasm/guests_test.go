package wasm

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	_ "image/jpeg"
	"image/png"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

func TestConformanceGuest(t *testing.T) {
	l := newTestLoader(t, Config{PoolSize: 2}, nil)
	p := load(t, l, builtGuest(t, "conformance"))
	reg := p.Describe()
	if reg.Provider.ID != "org.aios.conformance.wasm" || len(reg.Tools) != 7 || reg.Provider.Runtime != abi.RuntimeWASM {
		t.Fatalf("register: %+v", reg.Provider)
	}
	env := newFakeEnv(p, 4)
	big := strings.Repeat("ü", 1<<19) // 1 MiB of UTF-8
	for _, v := range []any{nil, true, int64(-7), 3.25, "héllo ☃", []any{int64(1), "x", nil}, map[string]any{"a": map[string]any{"b": []any{false}}}, big} {
		got, err := call(p, env, "echo", map[string]any{"value": v}, 5*time.Second)
		if err != nil || !reflect.DeepEqual(got, map[string]any{"value": v}) {
			t.Fatalf("echo %.40v: %.80v %v", v, got, err)
		}
	}
	cases := []struct {
		tool   string
		params map[string]any
		want   any
		code   abi.ErrorCode
		msg    string
	}{
		{"add", map[string]any{"a": int64(40), "b": int64(2)}, map[string]any{"sum": int64(42)}, "", ""},
		{"fail", map[string]any{"message": "on purpose"}, nil, abi.ProviderError, "on purpose"},
		{"sleep", map[string]any{"ms": int64(1) << 40}, nil, abi.Timeout, "deadline"},
		{"crash", map[string]any{}, nil, abi.ProviderCrashed, "panicked"},
		{"secret", map[string]any{}, map[string]any{"ok": true}, "", ""},
		{"nested", map[string]any{"tool": "echo", "params": map[string]any{"value": "hi"}}, map[string]any{"result": map[string]any{"value": "hi"}}, "", ""},
		{"nested", map[string]any{"tool": "fail", "params": map[string]any{"message": "deep"}}, nil, abi.ProviderError, "deep"},
		{"nested", map[string]any{"tool": "nested", "params": map[string]any{"tool": "nested", "params": map[string]any{"tool": "nested", "params": map[string]any{"tool": "nested", "params": map[string]any{"tool": "nested", "params": map[string]any{}}}}}}, nil, abi.DepthExceeded, "limit is 4"},
	}
	for _, c := range cases {
		t.Run(c.tool, func(t *testing.T) {
			d := 5 * time.Second
			if c.code == abi.Timeout {
				d = 200 * time.Millisecond
			}
			got, err := call(p, env, c.tool, c.params, d)
			if c.code != "" {
				if abi.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.msg) {
					t.Fatalf("got %v %v, want %s containing %q", got, err, c.code, c.msg)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %v %v, want %v", got, err, c.want)
			}
		})
	}
}

func testPNG(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 4), 128, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestImageResize(t *testing.T) {
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, builtGuest(t, "image-resize"))
	env := newFakeEnv(p, 2)
	src, err := env.SpaceWrite(context.Background(), "photos", testPNG(t, 64, 48))
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"png", "jpeg"} {
		got, err := call(p, env, "image-resize", map[string]any{"object_id": src.ID, "width": int64(16), "height": int64(12), "format": format}, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		m := got.(map[string]any)
		out, err := env.SpaceRead(context.Background(), "photos", m["output_id"].(string))
		if err != nil {
			t.Fatalf("output not in the input's space: %v", err)
		}
		img, kind, err := image.Decode(bytes.NewReader(out.Data))
		if err != nil || kind != format || img.Bounds().Dx() != 16 || img.Bounds().Dy() != 12 {
			t.Fatalf("%s: %v %v %v", format, kind, img.Bounds(), err)
		}
		if m["resized_size"] != int64(len(out.Data)) || m["original_size"].(int64) < 100 {
			t.Fatalf("%v", m)
		}
	}
	bad, _ := env.SpaceWrite(context.Background(), "photos", []byte("not an image"))
	if _, err := call(p, env, "image-resize", map[string]any{"object_id": bad.ID, "width": int64(1), "height": int64(1), "format": "png"}, 5*time.Second); abi.CodeOf(err) != abi.InvalidParams {
		t.Fatalf("%v", err)
	}
	if _, err := call(p, env, "image-resize", map[string]any{"object_id": "sha256:" + strings.Repeat("0", 64), "width": int64(1), "height": int64(1), "format": "png"}, 5*time.Second); abi.CodeOf(err) != abi.NotFound {
		t.Fatalf("%v", err)
	}
}

func TestComplexityGateCallsNative(t *testing.T) {
	l := newTestLoader(t, Config{}, nil)
	p := load(t, l, builtGuest(t, "complexity-gate"))
	env := newFakeEnv(p, 2)
	var seen any
	env.tools = map[string]func(any) (any, error){
		"analyze-complexity": func(params any) (any, error) {
			seen = params
			return map[string]any{"complexity": int64(12), "rating": "moderate"}, nil
		},
	}
	got, err := call(p, env, "complexity-gate", map[string]any{"object_id": "sha256:ab"}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"complexity": int64(12), "rating": "moderate", "max": int64(10), "passed": false, "via": "wasm→native"}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(seen, map[string]any{"object_id": "sha256:ab", "language": "go"}) {
		t.Fatalf("%v / %v", got, seen)
	}
	env.tools["analyze-complexity"] = func(any) (any, error) { return nil, abi.Errorf(abi.CapabilityDenied, "no ReadSpace(source)") }
	if _, err := call(p, env, "complexity-gate", map[string]any{"object_id": "x"}, 5*time.Second); abi.CodeOf(err) != abi.CapabilityDenied {
		t.Fatalf("%v", err)
	}
}

func TestPoolParallel(t *testing.T) {
	l := newTestLoader(t, Config{PoolSize: 2}, nil)
	p := load(t, l, builtGuest(t, "conformance"))
	env := newFakeEnv(p, 2)
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				got, err := call(p, env, "add", map[string]any{"a": int64(g), "b": int64(i)}, 10*time.Second)
				if err != nil || got.(map[string]any)["sum"] != int64(g+i) {
					errs <- errors.New("bad answer")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := p.Instances(); n > 2 {
		t.Fatalf("%d instances, pool_size is 2", n)
	}
}

func TestIdleTrim(t *testing.T) {
	l := newTestLoader(t, Config{PoolSize: 3, IdleTimeout: 20 * time.Millisecond}, nil)
	p := load(t, l, buildWAT(t, basicWAT("org.test.trim", 2)))
	env := newFakeEnv(p, 2)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); call(p, env, "const", nil, time.Second) }()
	}
	wg.Wait()
	deadline := time.Now().Add(2 * time.Second)
	for p.Instances() > 1 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := p.Instances(); n != 1 {
		t.Fatalf("%d instances after idle trimming, want min_idle 1", n)
	}
}

func TestCompileCacheOnDisk(t *testing.T) {
	dir := t.TempDir()
	l, err := NewLoader(Options{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	p := load(t, l, buildWAT(t, basicWAT("org.test.cache", 2)))
	p.Close()
	l.Close()
	entries, _ := os.ReadDir(dir + "/cache/wasm")
	if len(entries) == 0 {
		t.Fatal("no compiled code in <data>/cache/wasm")
	}
}

func TestInspect(t *testing.T) {
	reg, err := Inspect(context.Background(), builtGuest(t, "conformance"))
	if err != nil || len(reg.Tools) != 7 || reg.Tools[0].Parameters == nil {
		t.Fatalf("%+v %v", reg, err)
	}
	comp := writeFile(t, "c.wasm", []byte("\x00asm\x0d\x00\x01\x00"))
	if _, err := Inspect(context.Background(), comp); !errors.Is(err, ErrComponent) {
		t.Fatalf("%v", err)
	}
}

func TestConfigValidation(t *testing.T) {
	for _, c := range []Config{{MemoryLimitPages: 70000}, {Clock: "sundial"}, {Stdout: "printer"}, {Providers: map[string]ProviderConfig{"x": {MemoryLimitPages: 1 << 20}}}} {
		if _, err := NewLoader(Options{Config: c}); err == nil {
			t.Fatalf("%+v accepted", c)
		}
	}
}
