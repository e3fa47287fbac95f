package python

import (
	"math"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestPyKey: the MessagePack side turns a dict key that is not a string
// into what json.dumps makes of it, floats as Python's repr writes them
// (checked against the interpreter for edge and random floats).
func TestPyKey(t *testing.T) {
	for _, c := range []struct {
		k    any
		want string
	}{
		{nil, "null"}, {true, "true"}, {false, "false"}, {int64(-7), "-7"},
		{uint64(math.MaxUint64), "18446744073709551615"}, {2.0, "2.0"}, {[]any{int64(1)}, ""},
	} {
		got, err := pyKey(c.k)
		if c.want == "" {
			if err == nil || err.Error() != "keys must be str, int, float, bool or None, not tuple" {
				t.Fatalf("%#v: %q, %v", c.k, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Fatalf("%#v: %q, %v, want %q", c.k, got, err, c.want)
		}
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-4, 1e-5, 1.5e-5, 1e15, 1e16, 9999999999999998, 123456789012345680,
		1e22, 1e100, 5e-324, math.MaxFloat64, math.SmallestNonzeroFloat64, 1.0 / 3, 2.5e-4, 12345.678}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		floats = append(floats, math.Float64frombits(r.Uint64()&^(0x7ff<<52)|uint64(r.IntN(0x7ff))<<52))
	}
	var src strings.Builder
	for _, f := range floats {
		src.WriteString("print(repr(float.fromhex(" + strconv.Quote(strconv.FormatFloat(f, 'x', -1, 64)) + ")))\n")
	}
	out, err := exec.Command(py, "-I", "-c", src.String()).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(floats) {
		t.Fatalf("%d lines for %d floats", len(lines), len(floats))
	}
	for i, f := range floats {
		if got := pyFloatRepr(f); got != lines[i] {
			t.Fatalf("%v: %q, python's repr %q", f, got, lines[i])
		}
	}
}
