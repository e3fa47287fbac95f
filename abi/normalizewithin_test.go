package abi

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNormalizeWithin: a value is refused (ErrOverLimit, naming where it
// stopped) only when its JSON is over the limit, and a value within it is
// normalized as Normalize does it, Go values of every kind included.
func TestNormalizeWithin(t *testing.T) {
	type row struct {
		Name string `json:"name"`
		N    int    `json:"n"`
	}
	values := []any{
		nil, true, "text\b\u2028", 42, uint32(7), float32(0.1), 2.5, json.Number("12"), json.RawMessage(`{"a":[1,2]}`),
		[]string{"a", "b"}, map[string]int{"x": 1, "y": -20}, map[int]string{3: "three"}, row{"r", 1},
		[]row{{"a", 1}, {"b", 2}}, &row{"p", 3}, time.Duration(5), map[string]any{"k": []any{int64(1), map[string]any{}}},
	}
	for _, v := range values {
		want, err := Normalize(v)
		if err != nil {
			t.Fatal(err)
		}
		text, _ := json.Marshal(want)
		size := len(text)
		got, err := NormalizeWithin(v, size)
		if err != nil {
			t.Errorf("%#v (%d bytes of JSON) at a limit of %d: %v", v, size, size, err)
			continue
		}
		if g, _ := json.Marshal(got); string(g) != string(text) {
			t.Errorf("%#v: NormalizeWithin gave %s, Normalize %s", v, g, text)
		}
		// Refused only below its size.
		for limit := 0; limit < size; limit++ {
			if _, err := NormalizeWithin(v, limit); err != nil && !errors.Is(err, ErrOverLimit) {
				t.Errorf("%#v at a limit of %d: %v, want ErrOverLimit or nothing", v, limit, err)
			}
		}
	}
	big := make(map[string][]int, 1000)
	for i := range 1000 {
		big["key-"+strconv.Itoa(i)] = []int{i, i}
	}
	_, err := NormalizeWithin(big, 100)
	if !errors.Is(err, ErrOverLimit) || !strings.HasPrefix(err.Error(), "$") {
		t.Errorf("a map of many entries at a limit of 100 bytes: %v, want ErrOverLimit naming where", err)
	}
	// Other errors as Normalize's.
	if _, err := NormalizeWithin(map[string]any{"f": func() {}}, 1<<20); err == nil || errors.Is(err, ErrOverLimit) || !strings.Contains(err.Error(), "$.f") {
		t.Errorf("a func within the limit: %v, want Normalize's error", err)
	}
}

// FuzzNormalizeWithin: NormalizeWithin refuses a value only when its JSON
// is longer than the limit, and admits every value within it.
func FuzzNormalizeWithin(f *testing.F) {
	for _, s := range []string{`null`, `[1,2.5,"\b"]`, `{"a":{"b":[1e21,-0.0,18446744073709551615]}}`, `""`, `[[],{}]`} {
		f.Add([]byte(s), 10)
	}
	f.Fuzz(func(t *testing.T, data []byte, limit int) {
		var v any
		if UnmarshalJSONValue(data, &v) != nil {
			return
		}
		text, err := json.Marshal(v)
		if err != nil {
			return
		}
		size := len(text)
		if _, err := NormalizeWithin(Copy(v), size); err != nil {
			t.Fatalf("%s (%d bytes) at its own size: %v", data, size, err)
		}
		_, err = NormalizeWithin(Copy(v), limit)
		if errors.Is(err, ErrOverLimit) && size <= limit {
			t.Fatalf("%s (%d bytes) refused at a limit of %d", data, size, limit)
		}
		if err != nil && !errors.Is(err, ErrOverLimit) {
			t.Fatalf("%s at a limit of %d: %v", data, limit, err)
		}
	})
}
