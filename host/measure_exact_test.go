package host

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/runtimes/native"
)

// encodedLen is the length of canonical value v as the host writes it,
// by encoding/json itself: the oracle jsonOver is checked against.
func encodedLen(v any) int {
	var c strings.Builder
	enc := json.NewEncoder(&c)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(abi.ForJSON(v)); err != nil {
		return math.MaxInt
	}
	return c.Len() - 1 // the Encoder's newline
}

// jsonLen is the length jsonOver counts for v (math.MaxInt if it cannot
// be encoded).
func jsonLen(v any) int {
	n := 0
	if !jsonLenWithin(v, math.MaxInt, &n, 0) {
		return math.MaxInt
	}
	return n
}

// TestJSONOverIsEncodingJSON: jsonOver counts the host's JSON exactly, as
// encoding/json writes it without HTML escapes: floats in either notation
// (abi.ForJSON's big whole floats in exponent form), strings with the
// escapes encoding/json writes short (\b, \f) and those it writes long
// (U+2028, control characters).
func TestJSONOverIsEncodingJSON(t *testing.T) {
	values := []any{
		nil, true, false, "", "plain", "\b\f\n\r\t\"\\", "\x01\x1f\x7f", "a\u2028b\u2029c", "é€😀", "<&>",
		int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64), uint64(math.MaxUint64), uint64(1 << 63),
		0.0, math.Copysign(0, -1), 0.5, -0.1, 1e-6, 9.99e-7, 1e-7, 1.5e-300, 1e20, 1e21, 1.2345e21, float64(1 << 53), -float64(1 << 60),
		float64(1<<53) + 2, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, 3.0,
		[]any{}, map[string]any{}, []any{int64(1), "x", nil, []any{}},
		map[string]any{"a\u2028": []any{0.25, map[string]any{"\b": false}}, "": int64(7)},
	}
	for _, v := range values {
		want := encodedLen(v)
		if got := jsonLen(v); got != want {
			t.Errorf("%#v: jsonOver counts %d bytes, encoding/json writes %d", v, got, want)
		}
		if jsonOver(v, want) || !jsonOver(v, want-1) {
			t.Errorf("%#v (%d bytes): jsonOver(%d) = %v, jsonOver(%d) = %v", v, want, want, jsonOver(v, want), want-1, jsonOver(v, want-1))
		}
	}
	// Not encodable: over any limit.
	for _, v := range []any{math.NaN(), math.Inf(1), []any{math.Inf(-1)}, struct{}{}} {
		if !jsonOver(v, math.MaxInt-1) {
			t.Errorf("%#v: not over the limit, want over any limit (it cannot be encoded)", v)
		}
	}
}

// FuzzJSONOver: for any JSON text, the length jsonOver counts of its
// canonical value is what encoding/json writes.
func FuzzJSONOver(f *testing.F) {
	for _, s := range []string{`null`, `[1,2.5,"\b\u2028"]`, `{"a":{"b":[1e21,1e-7,9007199254740993.0]}}`, `"\u0001"`, `-0.0`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v any
		if abi.UnmarshalJSONValue(data, &v) != nil {
			return
		}
		want := encodedLen(v)
		if got := jsonLen(v); got != want {
			t.Fatalf("%s: jsonOver counts %d bytes, encoding/json writes %d", data, got, want)
		}
	})
}

// TestJSONOverStopsPastLimit: jsonOver stops counting once past its limit,
// not after the whole value.
func TestJSONOverStopsPastLimit(t *testing.T) {
	big := make([]any, 1000)
	for i := range big {
		row := make([]any, 1000)
		for j := range row {
			row[j] = map[string]any{"n": int64(j), "s": "some text"}
		}
		big[i] = row
	}
	n := 0
	if jsonLenWithin(big, 1024, &n, 0) {
		t.Fatal("a million entries within 1024 bytes")
	}
	if n > 10_000 {
		t.Errorf("counted %d bytes of a value over a limit of 1024: it did not stop past the limit", n)
	}
}

// countedInt is a result value that counts how often it is normalized
// (encoding/json calls its MarshalJSON).
type countedInt struct {
	v     int
	calls *atomic.Int64
}

func (c countedInt) MarshalJSON() ([]byte, error) {
	c.calls.Add(1)
	return json.Marshal(c.v)
}

// TestHugeResultRefusedEarly: a native tool's result of two million map
// entries (not canonical: a map[string]int) over limits.max_result_bytes
// was normalized whole, then encoded whole to measure it: seconds, the
// caller told Timeout after 22 s on a loaded machine (found by p170), not
// TooLarge. It is refused once the part normalized is over the limit, and
// so are params and error data.
func TestHugeResultRefusedEarly(t *testing.T) {
	te := newTestHost(t, nil) // max_params_bytes and max_result_bytes: 1024
	var calls atomic.Int64
	huge := make(map[string]countedInt, 100_000)
	for i := range 100_000 {
		huge[strings.Repeat("k", 8)+strconv.Itoa(i)] = countedInt{i, &calls}
	}
	p := native.New(abi.ProviderInfo{ID: "org.test.huge"})
	p.MustRegister(abi.ToolDef{Name: "huge", Version: "1.0.0"},
		func(_ context.Context, _ any, _ abi.Env) (any, error) { return huge, nil })
	p.MustRegister(abi.ToolDef{Name: "hugefail", Version: "1.0.0"},
		func(_ context.Context, _ any, _ abi.Env) (any, error) {
			return nil, &abi.ToolError{Code: abi.ProviderError, Message: "failed", Data: huge}
		})
	if err := te.h.AddProvider(context.Background(), p, ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	_, err := te.call("alice", "huge", map[string]any{})
	if abi.CodeOf(err) != abi.TooLarge || !strings.Contains(err.Error(), "limits.max_result_bytes") {
		t.Errorf("a result of 100000 entries at a limit of 1024 bytes: %v, want TooLarge", err)
	}
	if n := calls.Swap(0); n > 1000 {
		t.Errorf("%d of 100000 entries normalized before the result was refused at 1024 bytes", n)
	}
	_, err = te.call("alice", "hugefail", map[string]any{})
	var terr *abi.ToolError
	if !errors.As(err, &terr) || terr.Data != nil || !strings.Contains(terr.Message, "limits.max_result_bytes") {
		t.Errorf("error data of 100000 entries at a limit of 1024 bytes: %v, want it dropped naming the limit", err)
	}
	if n := calls.Swap(0); n > 1000 {
		t.Errorf("%d of 100000 entries of error data normalized before it was dropped", n)
	}
	_, err = te.call("alice", "whoami", map[string]any{"huge": huge})
	if abi.CodeOf(err) != abi.TooLarge || !strings.Contains(err.Error(), "limits.max_params_bytes") {
		t.Errorf("params of 100000 entries at a limit of 1024 bytes: %v, want TooLarge", err)
	}
	if n := calls.Swap(0); n > 1000 {
		t.Errorf("%d of 100000 entries of params normalized before they were refused", n)
	}
}
