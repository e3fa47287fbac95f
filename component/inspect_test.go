package component

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/wit"
)

func TestInspect(t *testing.T) {
	tests := []struct {
		sample string
		want   []string
		parses bool // the printed WIT parses back
	}{
		{"hello", []string{"import aios:sdk/log@0.1.0;", "export add: func(a: s32, b: s32) -> s32;", "record greeting {", "hello: func(g: greeting) -> result<string, string>;"}, true},
		{"conformance", []string{"record sum {", "export add: func(a: s64, b: s64) -> result<sum, string>;", "export crash: func();"}, true},
		{"kitchen", []string{"variant shape {", "flags perms {", "transform: func(item: item) -> result<item, string>;", "resource output-stream {"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.sample, func(t *testing.T) {
			in, err := Inspect(context.Background(), sample(t, tc.sample), tc.sample+".wasm")
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(in.WIT, w) {
					t.Errorf("WIT lacks %q:\n%s", w, in.WIT)
				}
			}
			if tc.parses {
				if _, err := wit.ParseSource(tc.sample+".wit", in.WIT, wit.Options{}); err != nil {
					t.Errorf("printed WIT does not parse: %v\n%s", err, in.WIT)
				}
			}
			var text bytes.Buffer
			if err := in.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), "input schema:") {
				t.Errorf("text output has no schemas:\n%s", text.String())
			}
			b, err := json.Marshal(in.JSON())
			if err != nil {
				t.Fatal(err)
			}
			var out struct {
				Tools []struct {
					Name        string         `json:"name"`
					InputSchema map[string]any `json:"input_schema"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(b, &out); err != nil || len(out.Tools) == 0 || out.Tools[0].InputSchema["type"] != "object" {
				t.Fatalf("--json output %s (%v)", b, err)
			}
		})
	}
}
