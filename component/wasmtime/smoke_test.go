//go:build wasmtime

package wasmtime

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

func TestHelloOnWasmtime(t *testing.T) {
	l := newLoader(t, Options{})
	p := loadWT(t, l, "hello")
	env := &fakeEnv{}
	tests := []struct {
		tool   string
		params any
		want   any
		code   abi.ErrorCode
	}{
		{"add", map[string]any{"a": int64(40), "b": int64(2)}, int64(42), ""},
		{"add", map[string]any{"a": int64(1) << 40, "b": int64(2)}, nil, abi.InvalidParams},
		{"hello", map[string]any{"g": map[string]any{"name": "wörld", "times": int64(2)}}, "hello, wörldwörld", ""},
		{"hello", map[string]any{"g": map[string]any{"name": "x", "times": int64(0)}}, nil, abi.ProviderError},
		{"nope", map[string]any{}, nil, abi.NotFound},
	}
	for _, tc := range tests {
		got, err := callP(p, env, tc.tool, tc.params, 10*time.Second)
		if tc.code != "" {
			if abi.CodeOf(err) != tc.code {
				t.Errorf("%s %v: err %v, want code %s", tc.tool, tc.params, err, tc.code)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %v = %#v, %v; want %#v", tc.tool, tc.params, got, err, tc.want)
		}
	}
	if !strings.Contains(strings.Join(env.logs, ""), "hello called with times = 0") {
		t.Errorf("guest log not seen: %v", env.logs)
	}
}
