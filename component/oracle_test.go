package component

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/aios-host/aios-host/internal/testutil"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

type oracleCase struct {
	Fn string `json:"fn"`
	// Params of the call. A "$put" entry (bytes) is stored in Space
	// storage first and removed; "$PUT" in the other params is its id.
	Params map[string]any `json:"params"`
}

// kitchenCases are run through aios-host and through `jco transpile` in node
// (the reference implementation); the answers must agree.
var kitchenCases = []oracleCase{
	{"transform", map[string]any{"item": map[string]any{"name": "widget", "tags": []any{"a", "b", "c"}, "color": "blue",
		"perms": []any{"read", "exec"}, "shape": map[string]any{"tag": "rect", "val": []any{1.5, 2.0}}, "note": nil, "count": int64(3)}}},
	{"transform", map[string]any{"item": map[string]any{"name": "ünïcode ✓", "tags": []any{"x"}, "color": "green",
		"perms": []any{}, "shape": map[string]any{"tag": "circle", "val": 0.25}, "note": "hi", "count": int64(41)}}},
	{"transform", map[string]any{"item": map[string]any{"name": "e", "tags": []any{}, "color": "red",
		"perms": []any{"read", "write", "exec"}, "shape": map[string]any{"tag": "empty"}, "count": int64(7)}}},
	{"transform", map[string]any{"item": map[string]any{"name": "x", "tags": []any{}, "color": "red",
		"perms": []any{}, "shape": map[string]any{"tag": "empty"}, "note": "n", "count": int64(0)}}},
	{"stats", map[string]any{"data": []any{int64(1), int64(2), int64(250)}, "c": "q", "flag": false, "n": int64(-100)}},
	{"stats", map[string]any{"data": []any{}, "c": "😀", "flag": true, "n": int64(127)}},
	{"hostile", map[string]any{"kind": int64(0)}},
	{"hostile", map[string]any{"kind": int64(3)}},
}

func runOracle(t *testing.T, sampleName string, cases []oracleCase) []map[string]any {
	t.Helper()
	root := testutil.RepoRoot(t)
	dir := filepath.Join(root, "build", "components", "jco", sampleName)
	if _, err := os.Stat(filepath.Join(dir, sampleName+".js")); err != nil {
		t.Fatalf("%s missing: run `make samples` (samples/components/build.sh): %v", dir, err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is needed for the jco oracle (scripts/deps.sh installs it): %v", err)
	}
	data, _ := json.Marshal(cases)
	cf := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(cf, data, 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// componentize-js output uses extended constant expressions, behind a
	// flag in node 20.
	cmd := exec.CommandContext(ctx, node, "--experimental-wasm-extended-const", filepath.Join(root, "samples", "components", "oracle", sampleName+".mjs"), dir, cf)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("oracle: %v\n%s", err, stderr.String())
	}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "ORACLE "); ok {
			var v any
			if err := abi.UnmarshalJSONValue([]byte(rest), &v); err != nil {
				t.Fatal(err)
			}
			var res []map[string]any
			for _, x := range v.([]any) {
				res = append(res, x.(map[string]any))
			}
			return res
		}
	}
	t.Fatalf("oracle printed no result:\n%s", out)
	return nil
}

// normalize makes whole floats comparable (JSON from node has 3, Go has 3.0).
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = abi.UnmarshalJSONValue(b, &out)
	return floatsToInts(out)
}

func floatsToInts(v any) any {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	case []any:
		for i := range x {
			x[i] = floatsToInts(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = floatsToInts(x[k])
		}
	}
	return v
}

// compareWithOracle runs cases through the provider and checks each answer
// against the oracle's.
func compareWithOracle(t *testing.T, p *Provider, env *fakeEnv, cases []oracleCase, want []map[string]any) {
	t.Helper()
	if len(want) != len(cases) {
		t.Fatalf("oracle gave %d answers for %d cases", len(want), len(cases))
	}
	for i, c := range cases {
		params := c.Params
		if put, ok := params["$put"].([]byte); ok {
			obj, err := env.SpaceWrite(t.Context(), "images", put)
			if err != nil {
				t.Fatal(err)
			}
			params = map[string]any{}
			for k, v := range c.Params {
				if k != "$put" {
					params[k] = v
				}
			}
			b, _ := json.Marshal(params)
			var v any
			if err := abi.UnmarshalJSONValue([]byte(strings.ReplaceAll(string(b), "$PUT", obj.ID)), &v); err != nil {
				t.Fatal(err)
			}
			params = v.(map[string]any)
		}
		got, err := call(t, p, env, c.Fn, params)
		w := want[i]
		if we, failed := w["err"]; failed {
			if err == nil {
				t.Errorf("case %d %s: got %v, jco failed with %v", i, c.Fn, got, we)
				continue
			}
			if s, ok := we.(string); ok && !strings.HasPrefix(s, "trap:") {
				if te := abi.AsToolError(err, abi.Internal); te.Code != abi.ProviderError || te.Message != s {
					t.Errorf("case %d %s: error %v, jco error %q", i, c.Fn, err, s)
				}
			} else if abi.CodeOf(err) != abi.ProviderCrashed {
				t.Errorf("case %d %s: error %v, jco trapped (%v)", i, c.Fn, err, we)
			}
			continue
		}
		if err != nil {
			t.Errorf("case %d %s: %v; jco returned %v", i, c.Fn, err, w["ok"])
			continue
		}
		if g, o := normalize(got), normalize(w["ok"]); !reflect.DeepEqual(g, o) {
			t.Errorf("case %d %s:\n aios-host %#v\n jco       %#v", i, c.Fn, g, o)
		}
	}
}

func TestKitchenAgainstJco(t *testing.T) {
	want := runOracle(t, "kitchen", kitchenCases)
	p := load(t, "kitchen")
	env := &fakeEnv{}
	compareWithOracle(t, p, env, kitchenCases, want)
	if len(env.logs) == 0 || !strings.Contains(strings.Join(env.logs, ""), "transform widget: 3 tags") {
		t.Errorf("guest stdout did not reach the log: %q", env.logs)
	}
}

var jstextCases = []oracleCase{
	{"count", map[string]any{"text": "hello wörld\nbye 😀"}},
	{"count", map[string]any{"text": ""}},
	{"slugify", map[string]any{"title": "Héllo, World! Ça va?"}},
	{"slugify", map[string]any{"title": "Héllo, World!", "max-len": int64(8)}},
	{"slugify", map[string]any{"title": "!!!"}},
}

// The JavaScript component (componentize-qjs): a composition of the QuickJS
// runtime component and the script's module-loader component.
func TestJSTextAgainstJco(t *testing.T) {
	want := runOracle(t, "jstext", jstextCases)
	p := load(t, "jstext")
	for _, d := range p.Describe().Tools {
		if d.Name == "init" {
			t.Errorf("componentize-qjs's init is offered as a tool")
		}
	}
	compareWithOracle(t, p, &fakeEnv{}, jstextCases, want)
}

// Hostile answers from the guest are ProviderCrashed, and the provider keeps serving.
func TestKitchenHostile(t *testing.T) {
	p := load(t, "kitchen")
	env := &fakeEnv{}
	for _, kind := range []int64{0, 1, 2} {
		_, err := call(t, p, env, "hostile", map[string]any{"kind": kind})
		if abi.CodeOf(err) != abi.ProviderCrashed {
			t.Errorf("hostile %d: %v, want ProviderCrashed", kind, err)
		}
	}
	got, err := call(t, p, env, "hostile", map[string]any{"kind": int64(3)})
	if err != nil || got != "ok" {
		t.Fatalf("after hostile answers: %v %v", got, err)
	}
}

var helloCases = []oracleCase{
	{"add", map[string]any{"a": int64(2), "b": int64(-5)}},
	{"add", map[string]any{"a": int64(2147483647), "b": int64(1)}},
	{"hello", map[string]any{"g": map[string]any{"name": "wö", "times": int64(2)}}},
	{"hello", map[string]any{"g": map[string]any{"name": "w", "times": int64(0)}}},
}

// The C freestanding sample against jco (aios:sdk/log stubbed in node).
func TestHelloAgainstJco(t *testing.T) {
	want := runOracle(t, "hello", helloCases)
	compareWithOracle(t, load(t, "hello"), &fakeEnv{}, helloCases, want)
}

// The Go image-tools sample against jco: the same resized bytes (so the same
// ObjectId), sizes and errors. aios:sdk/spaces is an in-memory store in node.
func TestImageToolsAgainstJco(t *testing.T) {
	img := testPNG(t, 50, 40)
	cases := []oracleCase{
		{"resize", map[string]any{"$put": img, "params": map[string]any{"object-id": "$PUT", "width": int64(20), "height": int64(10), "format": "png"}}},
		{"resize", map[string]any{"$put": img, "params": map[string]any{"object-id": "$PUT", "width": int64(7), "height": int64(9), "format": "jpeg"}}},
		{"resize", map[string]any{"$put": img, "params": map[string]any{"object-id": "$PUT", "width": int64(3), "height": int64(3), "format": "tiff"}}},
		{"resize", map[string]any{"$put": []byte("not an image"), "params": map[string]any{"object-id": "$PUT", "width": int64(3), "height": int64(3), "format": "png"}}},
	}
	want := runOracle(t, "imagetools", cases)
	compareWithOracle(t, load(t, "imagetools"), &fakeEnv{}, cases, want)
}
