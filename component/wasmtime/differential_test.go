//go:build wasmtime

package wasmtime

import (
	"context"
	"github.com/aios-host/aios-host/internal/testutil"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
	"github.com/aios-host/aios-host/wit"
)

// genWit makes a random value of WIT type t (within the type: valid chars,
// in-range integers, known cases and flags).
func genWit(r *rand.Rand, t *wit.Type, depth int) wit.Value {
	switch t.Kind {
	case wit.KindBool:
		return r.IntN(2) == 1
	case wit.KindS8:
		return int64(int8(r.Uint32()))
	case wit.KindS16:
		return int64(int16(r.Uint32()))
	case wit.KindS32:
		return int64(r.IntN(2000) - 1000)
	case wit.KindS64:
		return int64(r.IntN(2000)) - 1000
	case wit.KindU8:
		return uint64(uint8(r.Uint32()))
	case wit.KindU16:
		return uint64(uint16(r.Uint32()))
	case wit.KindU32:
		// Small: a guest that loops n times must not depend on engine speed.
		return uint64(r.IntN(1000))
	case wit.KindU64:
		return uint64(r.IntN(1000))
	case wit.KindF32:
		return float32(r.IntN(2000)-1000) / 4
	case wit.KindF64:
		return float64(r.IntN(20000)-10000) / 8
	case wit.KindChar:
		return []rune("aZ0ä€😀 \n")[r.IntN(8)]
	case wit.KindString:
		alphabet := []rune("abcXYZ019 _-äö€😀\"\\\n")
		b := make([]rune, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	case wit.KindList:
		n := r.IntN(4)
		if t.Len > 0 {
			n = int(t.Len)
		}
		if depth > 3 && t.Len == 0 {
			n = 0
		}
		if t.Elem.Kind == wit.KindU8 && t.Len == 0 {
			b := make([]byte, n*3)
			for i := range b {
				b[i] = byte(r.Uint32())
			}
			return b
		}
		out := make([]wit.Value, n)
		for i := range out {
			out[i] = genWit(r, t.Elem, depth+1)
		}
		return out
	case wit.KindRecord:
		out := make(wit.Record, len(t.Fields))
		for i, f := range t.Fields {
			out[i] = genWit(r, f.Type, depth+1)
		}
		return out
	case wit.KindTuple:
		out := make(wit.Tuple, len(t.Tuple))
		for i, et := range t.Tuple {
			out[i] = genWit(r, et, depth+1)
		}
		return out
	case wit.KindVariant:
		c := r.IntN(len(t.Cases))
		var v wit.Value
		if t.Cases[c].Type != nil {
			v = genWit(r, t.Cases[c].Type, depth+1)
		}
		return wit.Variant{Case: uint32(c), Val: v}
	case wit.KindEnum:
		return wit.Enum(r.IntN(len(t.Names)))
	case wit.KindFlags:
		return wit.Flags(r.Uint64() & (1<<uint(len(t.Names)) - 1))
	case wit.KindOption:
		if r.IntN(2) == 0 {
			return wit.Option{}
		}
		return wit.Option{Some: true, Val: genWit(r, t.Elem, depth+1)}
	case wit.KindResult:
		side := t.Ok
		isErr := r.IntN(2) == 0
		if isErr {
			side = t.Err
		}
		var v wit.Value
		if side != nil {
			v = genWit(r, side, depth+1)
		}
		return wit.Result{IsErr: isErr, Val: v}
	}
	return nil
}

// genParams makes the params object of f from random values.
func genParams(t *testing.T, r *rand.Rand, f *wit.Func) map[string]any {
	out := map[string]any{}
	for _, p := range f.Params {
		j, err := wit.ToJSON(p.Type, genWit(r, p.Type, 0))
		if err != nil {
			t.Fatalf("%s: ToJSON: %v", p.Name, err)
		}
		out[p.Name] = j
	}
	return out
}

type outcome struct {
	Value any
	Code  abi.ErrorCode
}

// TestDifferentialComponents runs every sample component in build/components
// on the pure-Go engine (package component) and on wasmtime with fixed and
// generated inputs, and requires the same values and error codes.
func TestDifferentialComponents(t *testing.T) {
	dir := filepath.Join(testutil.RepoRoot(t), "build", "components")
	files, _ := filepath.Glob(filepath.Join(dir, "*.wasm"))
	if len(files) == 0 {
		t.Fatalf("no components in %s: run `make samples`", dir)
	}
	// The samples set no bit past their flags' labels (kitchen's perms):
	// FlagResultsError would send kitchen to wazero alone.
	wl := newLoader(t, Options{AllowFlagResults: true})
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".wasm")
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			pa, err := component.New(context.Background(), b, f, "", component.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer pa.Close()
			pbi, err := wl.Load(context.Background(), abi.Source{Path: f})
			if err != nil && strings.Contains(err.Error(), "component model async feature") {
				// wasmtime v39's C API has no switch for component-model
				// async (task.*, stream.*): such components run on the
				// pure-Go engine only. Reported, not hidden.
				t.Logf("%s: wasmtime v39 refuses it (needs component-model async, which its C API cannot enable): %v", name, strings.SplitN(err.Error(), "\n", 2)[0])
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			pb := pbi.(*Provider)
			defer pb.Close()
			if !reflect.DeepEqual(pa.Describe(), pb.Describe()) {
				t.Fatalf("ToolRegister differs:\nwazero   %+v\nwasmtime %+v", pa.Describe(), pb.Describe())
			}
			r := rand.New(rand.NewPCG(7, uint64(len(name))))
			n := 0
			for _, tl := range pb.order {
				inputs := []any{map[string]any{}, nil, map[string]any{"unexpected": true}}
				for range 40 {
					if tl.JSONTool {
						inputs = append(inputs, map[string]any{"value": genWit(r, wit.Primitive(wit.KindString), 0), "tool": "add", "params": map[string]any{"a": int64(1), "b": int64(2)}, "message": "m"})
						continue
					}
					inputs = append(inputs, genParams(t, r, tl.WIT))
				}
				for _, in := range inputs {
					if tl.Def.Name == "sleep" {
						// 0: the sample's sleep busy-waits on the clock,
						// which on wazero is virtual unless granted (1 ns a
						// reading, docs/components.md): 2 ms took 0.9 s,
						// over the 5 s deadline under -race on a loaded
						// machine, and the run failed with Timeout on
						// wazero only. As TestDifferentialCoreModules does.
						in = map[string]any{"ms": int64(0)}
					}
					run := func(p abi.Provider) outcome {
						env := &fakeEnv{call: func(tool string, params any) (any, error) {
							return nil, abi.Errorf(abi.CapabilityDenied, "nested %s denied", tool)
						}}
						v, err := callP(p, env, tl.Def.Name, in, 5*time.Second)
						v, _ = abi.Normalize(v)
						return outcome{v, abi.CodeOf(err)}
					}
					a, b := run(pa), run(pb)
					n++
					if !reflect.DeepEqual(a, b) {
						t.Errorf("%s %s(%v):\nwazero   %#v\nwasmtime %#v", name, tl.Def.Name, in, a, b)
					}
				}
			}
			t.Logf("%s: %d calls agree", name, n)
		})
	}
}
