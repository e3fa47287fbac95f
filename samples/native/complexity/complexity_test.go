package complexity

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

const goSample = `package demo

func straight() int { return 1 }

func branchy(xs []int, ok bool) int {
	n := 0
	for _, x := range xs { // range +1
		if x > 0 && ok { // if +1, && +1
			n++
		} else if x < 0 || !ok { // if +1, || +1
			n--
		}
	}
	switch n { // cases +2, default +0
	case 1:
	case 2:
	default:
	}
	return n
}

type T struct{}

func (t *T) sel(a, b chan int) {
	select { // comm cases +2, default +0
	case <-a:
	case <-b:
	default:
	}
	f := func() {
		for i := 0; i < 3; i++ { // for +1 counted toward sel
		}
	}
	f()
}

type G[X any] struct{}

func (g *G[X]) M() {}
`

func TestGoFunctions(t *testing.T) {
	fns, err := GoFunctions([]byte(goSample))
	if err != nil {
		t.Fatal(err)
	}
	want := []Function{{"straight", 1}, {"branchy", 8}, {"(*T).sel", 4}, {"(*G).M", 1}}
	if len(fns) < len(want) {
		t.Fatalf("got %v", fns)
	}
	for i, w := range want {
		if fns[i] != w {
			t.Errorf("function %d = %+v, want %+v", i, fns[i], w)
		}
	}
	if _, err := GoFunctions([]byte("package x\nfunc {")); err == nil {
		t.Fatal("bad Go parsed without error")
	}
}

func TestGoFunctionsRealSource(t *testing.T) {
	src, err := os.ReadFile("complexity.go")
	if err != nil {
		t.Fatal(err)
	}
	fns, err := GoFunctions(src)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for _, f := range fns {
		byName[f.Name] = f.Complexity
	}
	// Rate: a switch with 3 non-default cases → 4.
	if byName["Rate"] != 4 {
		t.Fatalf("Rate complexity = %d, want 4 (all: %v)", byName["Rate"], fns)
	}
	if byName["stripCommentsAndStrings"] < 10 {
		t.Fatalf("stripCommentsAndStrings complexity = %d, expected ≥ 10", byName["stripCommentsAndStrings"])
	}
}

func TestApproximate(t *testing.T) {
	tests := []struct {
		lang, src string
		want      int
	}{
		{"python", "def f(x):\n    if x and y:\n        pass\n    elif z or w:\n        pass\n    # if in comment\n    s = 'if'\n", 5},
		{"python", `"""if for while"""` + "\nwhile True:\n    try:\n        pass\n    except E:\n        pass\n", 3},
		{"typescript", "function f(a?: number) { if (a && b) {} for (;;) {} const x = a ? 1 : 2; const y = a ?? 3; o?.p; // if\n switch (a) { case 1: break; } try {} catch (e) {} }", 8},
		{"rust", "fn f(x: Option<i32>) -> i32 { /* if */ match x { Some(v) if v > 0 => v, Some(_) => 0, None => -1 } }", 5},
		{"rust", "fn g() -> Result<(), E> { let s = \"while\"; h()?; while a || b { loop {} } Ok(()) }", 5},
	}
	for _, tc := range tests {
		t.Run(tc.lang, func(t *testing.T) {
			if got := Approximate([]byte(tc.src), tc.lang); got != tc.want {
				t.Fatalf("Approximate = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestRate(t *testing.T) {
	for c, want := range map[int]string{1: "low", 10: "low", 11: "moderate", 20: "moderate", 21: "high", 50: "high", 51: "very high"} {
		if got := Rate(c); got != want {
			t.Errorf("Rate(%d) = %q, want %q", c, got, want)
		}
	}
}

// fakeEnv serves SpaceRead from a map, as the host would.
type fakeEnv struct {
	objects map[string][]byte
	spaces  []string
}

func (e *fakeEnv) Call() *abi.ToolCall { return nil }
func (e *fakeEnv) CallTool(context.Context, string, string, any) (any, error) {
	return nil, &abi.ToolError{Code: abi.CapabilityDenied}
}
func (e *fakeEnv) SpaceRead(_ context.Context, space, id string) (abi.Object, error) {
	if data, ok := e.objects[id]; ok {
		return abi.Object{Space: "source", ID: id, Data: data}, nil
	}
	return abi.Object{}, &abi.ToolError{Code: abi.NotFound, Message: "no object " + id}
}
func (e *fakeEnv) SpaceWrite(context.Context, string, []byte) (abi.Object, error) {
	return abi.Object{}, &abi.ToolError{Code: abi.CapabilityDenied}
}
func (e *fakeEnv) Complete(context.Context, abi.CompleteRequest) (abi.CompleteResponse, error) {
	return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable}
}
func (e *fakeEnv) Logger() *slog.Logger { return slog.Default() }

func TestToolCall(t *testing.T) {
	p := New()
	reg := p.Describe()
	if reg.Provider.ID != "org.aios.samples.complexity" || len(reg.Tools) != 1 || reg.Tools[0].CapabilityRequired[0] != "ReadSpace(source)" {
		t.Fatalf("registration: %+v", reg)
	}
	env := &fakeEnv{objects: map[string][]byte{"sha256:go": []byte(goSample), "sha256:py": []byte("if a:\n  pass\n"), "sha256:bad": []byte("not go")}}
	tests := []struct {
		name   string
		params map[string]any
		want   int64
		rating string
		code   abi.ErrorCode
	}{
		{"go default language", map[string]any{"object_id": "sha256:go"}, 8, "low", ""},
		{"python", map[string]any{"object_id": "sha256:py", "language": "python"}, 2, "low", ""},
		{"missing object", map[string]any{"object_id": "sha256:none"}, 0, "", abi.NotFound},
		{"not go", map[string]any{"object_id": "sha256:bad", "language": "go"}, 0, "", abi.ProviderError},
		{"unknown language", map[string]any{"object_id": "sha256:go", "language": "cobol"}, 0, "", abi.InvalidParams},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := p.Call(context.Background(), &abi.ToolCall{Tool: ToolName, Params: tc.params}, env)
			if tc.code != "" {
				if abi.CodeOf(err) != tc.code {
					t.Fatalf("err = %v, want %s", err, tc.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			m := res.(map[string]any)
			if m["complexity"] != tc.want || m["rating"] != tc.rating {
				t.Fatalf("result %v", m)
			}
			if !abi.IsCanonical(res) {
				t.Fatalf("result not canonical: %#v", res)
			}
		})
	}
}

func FuzzApproximate(f *testing.F) {
	for _, s := range []string{"", "if a && b { }", "'''", `"unterminated`, "/* open", "x ?? y ?. z ? 1 : 2", "match x { a => 1 }", "#", "\\"} {
		for _, lang := range []string{"rust", "python", "typescript"} {
			f.Add([]byte(s), lang)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, lang string) {
		if c := Approximate(src, lang); c < 1 {
			t.Fatalf("complexity %d < 1", c)
		}
	})
}

func FuzzGoFunctions(f *testing.F) {
	f.Add([]byte(goSample))
	f.Add([]byte("package x\nfunc f() { if a { } }"))
	f.Add([]byte("package x\nfunc (r *T[A, B]) m() {}"))
	f.Add([]byte("not go"))
	f.Fuzz(func(t *testing.T, src []byte) {
		fns, err := GoFunctions(src)
		if err != nil {
			return
		}
		for _, fn := range fns {
			if fn.Complexity < 1 {
				t.Fatalf("%s: complexity %d", fn.Name, fn.Complexity)
			}
		}
	})
}
