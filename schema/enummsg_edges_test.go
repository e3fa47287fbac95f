package schema

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestEnumMessages: the fast path worded an enum failure with Go's
// %v ("value must be one of [red dark blue]": two values or three?) and a
// const "" as "value must be " (nothing); the reference listed every value
// of an enum, so a caller's wrong city against 10 000 names got a message
// of 130 KB, into the audit log too. Both paths now quote strings, show
// other values as JSON, and list the first ten.
func TestEnumMessages(t *testing.T) {
	big := make([]any, 10000)
	for i := range big {
		big[i] = fmt.Sprintf("city-%d", i)
	}
	cases := []struct {
		schema map[string]any
		value  any
		want   string
	}{
		{map[string]any{"enum": []any{"red", "dark blue"}}, "x", `value must be one of 'red', 'dark blue'`},
		{map[string]any{"enum": []any{"red", "dark blue"}, "not": map[string]any{"const": "z"}}, "x", `value must be one of 'red', 'dark blue'`},
		{map[string]any{"const": ""}, "x", `value must be ''`},
		{map[string]any{"const": "", "not": map[string]any{"const": "z"}}, "x", `value must be ''`},
		{map[string]any{"enum": []any{int64(1), "1", nil, map[string]any{"a": int64(1)}}}, int64(2), `value must be one of 1, '1', null, {"a":1}`},
		{map[string]any{"enum": []any{int64(1), "1", nil, map[string]any{"a": int64(1)}}, "not": map[string]any{"const": "z"}}, int64(2), `value must be one of 1, '1', null, {"a":1}`},
		{map[string]any{"enum": big}, "paris", `value must be one of 'city-0', 'city-1', 'city-2', 'city-3', 'city-4', 'city-5', 'city-6', 'city-7', 'city-8', 'city-9', … 9990 more`},
		{map[string]any{"enum": big, "not": map[string]any{"const": "z"}}, "paris", `value must be one of 'city-0', 'city-1', 'city-2', 'city-3', 'city-4', 'city-5', 'city-6', 'city-7', 'city-8', 'city-9', … 9990 more`},
	}
	for _, c := range cases {
		err := MustCompile("t@1.0.0 parameters", c.schema).Validate(c.value)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Message != c.want {
			msg := fmt.Sprint(err)
			if len(msg) > 300 {
				msg = msg[:300] + fmt.Sprintf("… (%d bytes)", len(msg))
			}
			t.Errorf("%.80s on %v: %s, want %s", fmt.Sprint(c.schema), c.value, msg, c.want)
		}
	}
	if err := MustCompile("t", map[string]any{"enum": []any{strings.Repeat("x", 1000), "b"}}).Validate("c"); err == nil || len(err.Error()) > 200 {
		t.Errorf("a long enum value: %v", err)
	}
}
