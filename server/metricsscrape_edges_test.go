package server

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/aios-host/aios-host/abi"
)

// scrape GETs /metrics as the local user and parses the text.
func scrape(t *testing.T, ts *testServer) map[string]*dto.MetricFamily {
	t.Helper()
	r := httptest.NewRequest("GET", "/metrics", nil)
	r.RemoteAddr = "127.0.0.1:5000"
	r.Host = "127.0.0.1"
	w := httptest.NewRecorder()
	ts.s.Handler().ServeHTTP(w, r)
	if w.Code != 200 {
		t.Fatalf("GET /metrics: HTTP %d %s", w.Code, w.Body.String())
	}
	body, _ := io.ReadAll(w.Body)
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
	if err != nil {
		t.Fatalf("/metrics does not parse: %v\n%s", err, body)
	}
	return fams
}

// value is the value of the series of family name with exactly labels
// (0 when there is none).
func value(fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	f := fams[name]
	if f == nil {
		return 0
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range m.GetLabel() {
			if v, ok := labels[l.GetName()]; !ok || v != l.GetValue() {
				continue next
			}
		}
		switch {
		case m.GetCounter() != nil:
			return m.GetCounter().GetValue()
		case m.GetGauge() != nil:
			return m.GetGauge().GetValue()
		case m.GetHistogram() != nil:
			return float64(m.GetHistogram().GetSampleCount())
		}
	}
	return 0
}

// TestMetricsAfterKnownCalls: after a known sequence of calls — served,
// failed, unknown tools, refused a capability, rate-limited, timed out —
// each documented family has the documented type and labels and counts
// each outcome, and each histogram's count equals its calls.
func TestMetricsAfterKnownCalls(t *testing.T) {
	ts := newTestServerAgents(t, "  lim: {grants: ['CallTool(*)'], rate: {per_second: 0.0001, burst: 1}}\n", "", false)
	ctx := context.Background()
	call := func(caller, tool string, params any, timeout time.Duration) abi.ErrorCode {
		in := &abi.ToolCall{Caller: caller, Tool: tool, Params: params}
		if timeout > 0 {
			in.Deadline = time.Now().Add(timeout)
		}
		_, err := ts.h.Call(ctx, in)
		if err == nil {
			return "OK"
		}
		return abi.AsToolError(err, abi.Internal).Code
	}
	expect := func(what string, got, want abi.ErrorCode) {
		t.Helper()
		if got != want {
			t.Fatalf("%s: %s, want %s", what, got, want)
		}
	}
	for range 3 {
		expect("add", call("cli", "add", map[string]any{"a": 1, "b": 2}, 0), "OK")
	}
	for range 2 {
		expect("fail", call("cli", "fail", map[string]any{}, 0), abi.ProviderError)
	}
	for i := range 5 {
		expect("unknown", call("cli", fmt.Sprintf("nosuch-%d", i), map[string]any{}, 0), abi.NotFound)
	}
	expect("secret as reader", call("reader", "secret", map[string]any{}, 0), abi.CapabilityDenied)
	expect("echo as lim", call("lim", "echo", map[string]any{"value": 1}, 0), "OK")
	expect("echo as lim again", call("lim", "echo", map[string]any{"value": 1}, 0), abi.RateLimited)
	expect("slow", call("cli", "slow", map[string]any{}, 50*time.Millisecond), abi.Timeout)

	fams := scrape(t, ts)
	types := map[string]dto.MetricType{
		"aios_tool_calls_total": dto.MetricType_COUNTER, "aios_tool_call_errors_total": dto.MetricType_COUNTER,
		"aios_tool_call_duration_seconds": dto.MetricType_HISTOGRAM, "aios_providers": dto.MetricType_GAUGE,
		"aios_tools": dto.MetricType_GAUGE, "aios_subscribers": dto.MetricType_GAUGE, "aios_audit_log_failing": dto.MetricType_GAUGE,
	}
	for name, typ := range types {
		if f := fams[name]; f == nil || f.GetType() != typ {
			t.Errorf("%s: %v, want type %v", name, f, typ)
		}
	}
	for _, c := range []struct {
		tool, runtime, code string
		want                float64
	}{
		{"add", "native", "OK", 3},
		{"fail", "native", "ProviderError", 2},
		{"unknown", "none", "NotFound", 5},
		{"secret", "native", "CapabilityDenied", 1},
		{"echo", "native", "OK", 1},
		{"echo", "native", "RateLimited", 1},
		{"slow", "native", "Timeout", 1},
	} {
		if got := value(fams, "aios_tool_calls_total", map[string]string{"tool": c.tool, "runtime": c.runtime, "code": c.code}); got != c.want {
			t.Errorf("aios_tool_calls_total{tool=%q,runtime=%q,code=%q} = %v, want %v", c.tool, c.runtime, c.code, got, c.want)
		}
	}
	for code, want := range map[string]float64{"ProviderError": 2, "NotFound": 5, "CapabilityDenied": 1, "RateLimited": 1, "Timeout": 1} {
		if got := value(fams, "aios_tool_call_errors_total", map[string]string{"code": code}); got != want {
			t.Errorf("aios_tool_call_errors_total{code=%q} = %v, want %v", code, got, want)
		}
	}
	for tool, want := range map[string]float64{"add": 3, "fail": 2, "echo": 2, "secret": 1, "slow": 1} {
		if got := value(fams, "aios_tool_call_duration_seconds", map[string]string{"tool": tool, "runtime": "native"}); got != want {
			t.Errorf("aios_tool_call_duration_seconds{tool=%q} count %v, want %v", tool, got, want)
		}
	}
	for _, m := range fams["aios_tool_call_duration_seconds"].GetMetric() {
		h := m.GetHistogram()
		prev := uint64(0)
		for _, b := range h.GetBucket() {
			if b.GetCumulativeCount() < prev || b.GetCumulativeCount() > h.GetSampleCount() {
				t.Errorf("%v: bucket %v holds %d, after %d, of %d", m.GetLabel(), b.GetUpperBound(), b.GetCumulativeCount(), prev, h.GetSampleCount())
			}
			prev = b.GetCumulativeCount()
		}
		if h.GetSampleSum() < 0 {
			t.Errorf("%v: sum %v", m.GetLabel(), h.GetSampleSum())
		}
	}
	if got := value(fams, "aios_providers", map[string]string{"runtime": "native"}); got != 1 {
		t.Errorf("aios_providers{runtime=native} = %v, want 1", got)
	}
	if got := value(fams, "aios_tools", map[string]string{}); got != 5 {
		t.Errorf("aios_tools = %v, want 5", got)
	}
}

// TestMetricsRPCMethodInitialize: aios_rpc_requests_total's method label
// is "one of the known methods or other" (docs/discovery.md), but
// initialize, a method of the API (config.RPCMethods), was counted as
// "other", with the names no method has.
func TestMetricsRPCMethodInitialize(t *testing.T) {
	ts := newTestServer(t, "", false)
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"no/such-method"}`,
	} {
		r := httptest.NewRequest("POST", "/rpc", strings.NewReader(body))
		r.RemoteAddr = "192.0.2.7:5000"
		r.Header.Set("Authorization", "Bearer "+testToken)
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		ts.s.Handler().ServeHTTP(w, r)
	}
	fams := scrape(t, ts)
	for method, want := range map[string]float64{"initialize": 1, "tools/list": 1, "other": 1} {
		if got := value(fams, "aios_rpc_requests_total", map[string]string{"transport": "http", "method": method}); got != want {
			t.Errorf("aios_rpc_requests_total{transport=http,method=%q} = %v, want %v", method, got, want)
		}
	}
}
