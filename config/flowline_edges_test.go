package config

import (
	"strings"
	"testing"
)

// TestFlowLineErrorsNameTheirOwnKeys: two values on one line of a flow
// mapping that were both wrong, written alike (rate_limits: {per_caller: 10,
// per_tool: 10}), were both named as the longer key: "rate_limits.per_caller:
// cannot unmarshal !!int `10` into map[string]config.Rate", the per_tool
// error under per_caller's name, so per_tool was never named. Each error
// names the key whose Go type it is about now, and two errors alike name
// two keys.
func TestFlowLineErrorsNameTheirOwnKeys(t *testing.T) {
	for _, tc := range []struct {
		yaml string
		want []string
	}{
		{"rate_limits: {per_caller: 10, per_tool: 10}\n", []string{
			"c.yaml:1: rate_limits.per_caller: cannot unmarshal !!int `10` into config.Rate",
			"c.yaml:1: rate_limits.per_tool: cannot unmarshal !!int `10` into map[string]config.Rate",
		}},
		{"rate_limits: {per_tool: 10, per_caller: 10}\n", []string{
			"c.yaml:1: rate_limits.per_tool: cannot unmarshal !!int `10` into map[string]config.Rate",
			"c.yaml:1: rate_limits.per_caller: cannot unmarshal !!int `10` into config.Rate",
		}},
		{"plugins: [{a: 1}, {b: 2}]\n", []string{
			"c.yaml:1: plugins[0]: cannot unmarshal !!map into string",
			"c.yaml:1: plugins[1]: cannot unmarshal !!map into string",
		}},
		{"limits: {max_call_depth: [1], max_deadline: [2]}\n", []string{
			"c.yaml:1: limits.max_call_depth: cannot unmarshal !!seq into int",
			"c.yaml:1: limits.max_deadline: cannot unmarshal !!seq into time.Duration",
		}},
		{"limits: {max_call_depth: x, max_params_bytes: x}\n", []string{
			"c.yaml:1: limits.max_call_depth: cannot unmarshal !!str `x` into int",
			"c.yaml:1: limits.max_params_bytes: cannot unmarshal !!str `x` into int",
		}},
	} {
		_, err := Parse([]byte(tc.yaml), "c.yaml")
		if err == nil {
			t.Errorf("%q: accepted", tc.yaml)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q:\n got %v\nwant a line starting %s", tc.yaml, err, w)
			}
		}
	}
}
