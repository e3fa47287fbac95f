package conformance

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

func TestContract(t *testing.T) {
	tests := []struct {
		name  string
		reg   *abi.ToolRegister
		id    string
		caps  []string
		tools []string
	}{
		{"conformance", New().Describe(), "org.aios.conformance.native", []string{"CallTool(*)"},
			[]string{"add", "crash", "echo", "fail", "nested", "secret", "sleep"}},
		{"peer", NewPeer().Describe(), "org.aios.conformance.peer", nil, []string{"peer-echo", "peer-secret", "peer-value"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.reg.Provider.ID != tc.id || !slices.Equal(tc.reg.Provider.Capabilities, tc.caps) || tc.reg.Provider.Runtime != abi.RuntimeNative {
				t.Fatalf("provider %+v", tc.reg.Provider)
			}
			var names []string
			for _, d := range tc.reg.Tools {
				names = append(names, d.Name)
				if d.Parameters == nil {
					t.Errorf("%s has no params schema", d.Name)
				}
				secret := d.Name == "secret" || d.Name == "peer-secret"
				if secret != slices.Equal(d.CapabilityRequired, []string{"ReadSpace(secret)"}) {
					t.Errorf("%s capability_required = %v", d.Name, d.CapabilityRequired)
				}
			}
			slices.Sort(names)
			if !slices.Equal(names, tc.tools) {
				t.Fatalf("tools %v, want %v", names, tc.tools)
			}
		})
	}
}

func TestToolsDirectly(t *testing.T) {
	p := New()
	ctx := context.Background()
	tests := []struct {
		tool   string
		params map[string]any
		want   any
		code   abi.ErrorCode
	}{
		{"echo", map[string]any{"value": []any{"x"}}, []any{"x"}, ""},
		{"add", map[string]any{"a": int64(-2), "b": int64(5)}, int64(3), ""},
		{"sleep", map[string]any{"ms": int64(1)}, int64(1), ""},
		{"secret", map[string]any{}, true, ""},
		{"fail", map[string]any{"message": "nope"}, nil, abi.ProviderError},
		{"crash", map[string]any{}, nil, abi.ProviderCrashed},
	}
	for _, tc := range tests {
		t.Run(tc.tool, func(t *testing.T) {
			v, err := p.Call(ctx, &abi.ToolCall{Tool: tc.tool, Params: tc.params}, nil)
			if abi.CodeOf(err) != tc.code {
				t.Fatalf("err = %v, want %q", err, tc.code)
			}
			if tc.code != "" {
				return
			}
			m := v.(map[string]any)
			var got any
			for _, k := range []string{"value", "sum", "slept", "ok"} {
				if x, ok := m[k]; ok {
					got = x
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("%s returned %v", tc.tool, v)
			}
		})
	}
}
