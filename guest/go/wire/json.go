package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// FromJSON decodes JSON into a canonical generic value (integers as int64,
// or uint64 above the int64 range; other numbers as float64).
func FromJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("json: %w", err)
	}
	// Only white space may follow (dec.More was false before a closing
	// bracket or brace: `{"a":1}},"b":2}` read as {"a":1}).
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("json: trailing data after the value at byte %d: %.20q", len(data)-len(rest), rest)
	}
	return fromJSON(v)
}

func fromJSON(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		n, ok := Number(string(x))
		if !ok {
			return nil, fmt.Errorf("json: bad number %q", string(x))
		}
		return n, nil
	case []any:
		for i, e := range x {
			n, err := fromJSON(e)
			if err != nil {
				return nil, err
			}
			x[i] = n
		}
	case map[string]any:
		for k, e := range x {
			n, err := fromJSON(e)
			if err != nil {
				return nil, err
			}
			x[k] = n
		}
	}
	return v, nil
}

// Number is the canonical value of JSON number literal s: int64 when it is
// an integer that fits, uint64 when it is one above the int64 range, else
// float64; ok is false when s is not a number or not a finite float64.
// Only an integer literal is tried as an integer (a failed parse allocates
// its error).
func Number(s string) (v any, ok bool) {
	if isIntLiteral(s) {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, true
		}
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return u, true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, false
	}
	return f, true
}

// isIntLiteral reports whether s is a JSON integer literal: an optional
// minus and digits only (no fraction, no exponent).
func isIntLiteral(s string) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// WideInteger finds, in v decoded with json.Number (a json.Decoder's
// UseNumber), an integer literal past the int64 and uint64 ranges, which
// Number reads as the nearest float64, another number: its path from v
// (".name" for a member, members in sorted order; "[i]" for an element;
// "" for v itself) and its text. Values deeper than MaxDepth are not
// looked at.
func WideInteger(v any) (path, lit string, ok bool) {
	return wideInteger(v, "", 0)
}

func wideInteger(v any, path string, depth int) (string, string, bool) {
	if depth > MaxDepth {
		return "", "", false
	}
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if d := strings.TrimPrefix(s, "-"); d == "" || strings.Trim(d, "0123456789") != "" {
			return "", "", false // not an integer literal
		}
		if n, ok := Number(s); ok {
			if _, f := n.(float64); f {
				return path, s, true
			}
		}
	case []any:
		for i, e := range x {
			if p, s, ok := wideInteger(e, path+"["+strconv.Itoa(i)+"]", depth+1); ok {
				return p, s, true
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if p, s, ok := wideInteger(x[k], path+"."+k, depth+1); ok {
				return p, s, true
			}
		}
	}
	return "", "", false
}
