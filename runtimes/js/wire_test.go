package js

import (
	"context"
	"log/slog"

	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/testutil"
)

// wireValues are values that must come back from an echo tool the same
// in both wire formats.
func wireValues() map[string]any {
	return map[string]any{
		"unicode":   "héllo ✓ 😀 \u2028 \x00 end",
		"empty_s":   "",
		"int":       int64(42),
		"neg":       int64(-7),
		"big":       int64(1 << 52),
		"float":     1.5,
		"whole_f":   3.0,
		"tiny":      1e-300,
		"huge":      1.7976931348623157e308,
		"true":      true,
		"false":     false,
		"null":      nil,
		"list":      []any{int64(1), "a", nil, []any{}, map[string]any{}},
		"empty_map": map[string]any{},
		"empty_l":   []any{},
		"nested":    map[string]any{"a": map[string]any{"b": map[string]any{"c": []any{map[string]any{"d": "e"}}}}},
		"keys":      map[string]any{"κλειδί": int64(1), "": int64(2), "with\"quote": int64(3)},
	}
}

// withWorkerFormats makes the workers started by the test offer formats.
func withWorkerFormats(t *testing.T, formats string) {
	old := workerFormats
	workerFormats = formats
	t.Cleanup(func() { workerFormats = old })
}

// TestProcessWireNegotiation: the host takes its preferred format when the
// worker offers it, else one the worker offers; values come back the same
// in both formats.
func TestProcessWireNegotiation(t *testing.T) {
	results := map[string]any{}
	for _, c := range []struct {
		name, pref, offer, want string
	}{
		{"default", "", "", "msgpack"},
		{"json-switch", "json", "", "json"},
		{"json-only-worker", "msgpack", "json", "json"},
		{"msgpack-only-worker", "json", "msgpack", "msgpack"},
		{"unknown-format-skipped", "json", "cbor,msgpack", "msgpack"},
	} {
		t.Run(c.name, func(t *testing.T) {
			withWorkerFormats(t, c.offer)
			p := loadIsolated(t, Options{Wire: c.pref}, isolatedSource)
			if got := p.Wire(); got != c.want {
				t.Fatalf("negotiated %q, want %q", got, c.want)
			}
			v, err := callIsolated(t, p, newFakeEnv(), "echo", wireValues(), 10*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			results[c.want] = v
		})
	}
	if !reflect.DeepEqual(results["msgpack"], results["json"]) {
		t.Fatalf("the formats disagree:\nmsgpack %#v\njson    %#v", results["msgpack"], results["json"])
	}
	// JS numbers: whole floats come back as integers, in both formats.
	want := wireValues()
	want["whole_f"] = int64(3)
	if !reflect.DeepEqual(results["json"], want) {
		t.Fatalf("echo changed the values:\n got %#v\nwant %#v", results["json"], want)
	}
}

// TestProcessWireBadHello: a worker that offers nothing the host reads,
// or speaks without a hello, fails the load with an error saying so.
func TestProcessWireBadHello(t *testing.T) {
	t.Run("no-known-format", func(t *testing.T) {
		withWorkerFormats(t, "cbor")
		rt := newRuntime(t, Options{Isolation: IsolationProcess})
		_, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "w.js", `aios.registerTool({name: 'a'}, () => 1);`)}, abi.RuntimeJS)
		if err == nil || !strings.Contains(err.Error(), `offers the wire formats ["cbor"], none of which this host reads (it reads msgpack and json)`) {
			t.Fatalf("a worker offering cbor: %v", err)
		}
	})
	for _, c := range []struct{ name, frame, want string }{
		{"register-first", `{"v":1,"kind":"register","register":{"format":1}}`, `sent a "register" message before its hello: it predates wire format negotiation`},
		{"version-2", `{"v":2,"kind":"hello","formats":["json"]}`, `hello has version 2; this host speaks version 1`},
		{"no-formats", `{"v":1,"kind":"hello"}`, `hello has no "formats" list of strings`},
		{"formats-not-strings", `{"v":1,"kind":"hello","formats":[1]}`, `hello has no "formats" list of strings`},
		{"msgpack-first", "\x82\xa1v\x01\xa4kind\xa8register", `first message is not a JSON hello (0x82a17601`},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "bad-worker")
			n := len(c.frame)
			hdr := []byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}
			data := filepath.Join(filepath.Dir(script), "frame")
			if err := os.WriteFile(data, append(hdr, c.frame...), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(script, []byte("#!/bin/sh\ncat '"+data+"'\nsleep 30\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			rt := newRuntime(t, Options{Isolation: IsolationProcess, WorkerCommand: script, Unconfined: true})
			start := time.Now()
			_, err := rt.load(context.Background(), abi.Source{Path: writeSource(t, "w.js", `aios.registerTool({name: 'a'}, () => 1);`)}, abi.RuntimeJS)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("the load took %v", d)
			}
		})
	}
}

// TestProcessWireDebugFrames: with debug logging on, every frame is
// logged (readable JSON in json mode); without it, none.
func TestProcessWireDebugFrames(t *testing.T) {
	for _, c := range []struct {
		wire  string
		level slog.Level
		want  string
	}{
		{"json", slog.LevelDebug, `\"kind\":\"call\"`},
		{"msgpack", slog.LevelDebug, `format=msgpack`},
		{"json", slog.LevelInfo, ""},
	} {
		t.Run(c.wire+"-"+c.level.String(), func(t *testing.T) {
			var logs testutil.SyncBuffer
			log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: c.level}))
			p := loadIsolated(t, Options{Wire: c.wire, Logger: log}, isolatedSource)
			if _, err := callIsolated(t, p, newFakeEnv(), "echo", map[string]any{"marker": "m-1"}, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			out := logs.String()
			if c.want == "" {
				if strings.Contains(out, "wire frame") {
					t.Fatalf("frames logged at %v:\n%s", c.level, out)
				}
				return
			}
			if !strings.Contains(out, "wire frame") || !strings.Contains(out, c.want) || !strings.Contains(out, "dir=in") || !strings.Contains(out, "dir=out") {
				t.Fatalf("no frame lines with %q in:\n%s", c.want, out)
			}
		})
	}
}
