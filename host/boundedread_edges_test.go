package host

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// TestSpaceReadAtMostReadsNothingOverBound: abi.BoundedSpaceReader lets a
// runtime whose answers are bounded (WASM's max_message_bytes) ask for an
// object only when it fits. The host's Env refuses a larger object
// TooLarge from its size alone, naming it, its space and both sizes (in
// Data too), by name and by a search of the readable spaces; an object
// that fits is read and verified as by SpaceRead. Proof that the large
// one is not read: its file is damaged, which a read would report.
func TestSpaceReadAtMostReadsNothingOverBound(t *testing.T) {
	te := newTestHost(t, nil)
	data := []byte(strings.Repeat("0123456789", 10))
	id, err := te.spaces.Put("source", data)
	if err != nil {
		t.Fatal(err)
	}
	hex := strings.TrimPrefix(id, "sha256:")
	file := filepath.Join(te.spaces.Root(), "source", hex[:2], hex[2:])
	if _, err := os.Stat(file); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		obj abi.Object
		err error
	}
	n := 0
	read := func(sp string, max int64) answer {
		var got answer
		n++
		pid := "org.probe.bounded" + strconv.Itoa(n)
		p := native.New(abi.ProviderInfo{ID: pid, Capabilities: []string{"ReadSpace(source)"}})
		p.MustRegister(abi.ToolDef{Name: "read-" + strconv.Itoa(n), Version: "1.0.0"}, func(ctx context.Context, _ any, env abi.Env) (any, error) {
			br, ok := env.(abi.BoundedSpaceReader)
			if !ok {
				t.Fatalf("the host's Env %T is not an abi.BoundedSpaceReader", env)
			}
			got.obj, got.err = br.SpaceReadAtMost(ctx, sp, id, max)
			return nil, nil
		})
		if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "/plugins/" + pid, Trust: abi.Verified}); err != nil {
			t.Fatal(err)
		}
		if _, err := te.call("alice", "read-"+strconv.Itoa(n), nil); err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, sp := range []string{"source", ""} {
		if got := read(sp, 1000); got.err != nil || string(got.obj.Data) != string(data) || got.obj.Space != "source" {
			t.Fatalf("space %q, bound 1000: %+v; want the object", sp, got)
		}
	}
	_ = os.Chmod(file, 0o644)
	if err := os.WriteFile(file, []byte(strings.Repeat("x", len(data))), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, sp := range []string{"source", ""} {
		got := read(sp, 10)
		te, _ := got.err.(*abi.ToolError)
		if te == nil || te.Code != abi.TooLarge {
			t.Fatalf("space %q, bound 10: %v; want TooLarge without reading the (damaged) object", sp, got.err)
		}
		for _, want := range []string{id, "source", "100 bytes", "bound of 10"} {
			if !strings.Contains(te.Message, want) {
				t.Errorf("space %q: %q; want it to name %q", sp, te.Message, want)
			}
		}
		if d, _ := te.Data.(map[string]any); d["space"] != "source" || d["size"] != int64(100) || d["limit"] != int64(10) {
			t.Errorf("space %q: data %v; want space, size and limit", sp, te.Data)
		}
		if got := read(sp, 1000); abi.CodeOf(got.err) == abi.TooLarge || got.err == nil {
			t.Errorf("space %q, bound 1000, damaged: %v; want the damage found by reading", sp, got.err)
		}
	}
	if got := read("source", 0); abi.CodeOf(got.err) != abi.InvalidParams {
		t.Errorf("bound 0: %v; want InvalidParams", got.err)
	}
}
