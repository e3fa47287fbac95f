package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"unicode/utf8"
)

// record is one line of the log. Its JSON form is canonical: keys in sorted
// order (the field order below), no white space, strings escaped by
// appendString. hash is the SHA-256 of the canonical form without the "hash"
// key; prev is the hash of the previous record ("" for the first).
type record struct {
	CallID     string `json:"call_id"`
	Caller     string `json:"caller"`
	Error      string `json:"error"`
	Hash       string `json:"hash"`
	LatencyUS  int64  `json:"latency_us"`
	Outcome    string `json:"outcome"`
	ParamsHash string `json:"params_hash"`
	ParentID   string `json:"parent_id"`
	Prev       string `json:"prev"`
	Provider   string `json:"provider"`
	ResultHash string `json:"result_hash"`
	Runtime    string `json:"runtime"`
	Seq        uint64 `json:"seq"`
	Time       string `json:"time"`
	Tool       string `json:"tool"`
	Untrusted  bool   `json:"untrusted"`
	Version    string `json:"version"`
}

// appendRecord appends the canonical JSON of r (with the hash key when
// withHash) to buf, without a trailing newline.
func appendRecord(buf []byte, r *record, withHash bool) []byte {
	buf = appendHead(buf, r)
	if withHash {
		buf = append(buf, `,"hash":`...)
		buf = appendString(buf, r.Hash)
	}
	return appendTail(buf, r)
}

// appendHead writes the keys that sort before "hash".
func appendHead(buf []byte, r *record) []byte {
	buf = append(buf, `{"call_id":`...)
	buf = appendString(buf, r.CallID)
	buf = append(buf, `,"caller":`...)
	buf = appendString(buf, r.Caller)
	buf = append(buf, `,"error":`...)
	return appendString(buf, r.Error)
}

// appendTail writes the keys that sort after "hash" and closes the object.
func appendTail(buf []byte, r *record) []byte {
	buf = append(buf, `,"latency_us":`...)
	buf = strconv.AppendInt(buf, r.LatencyUS, 10)
	buf = append(buf, `,"outcome":`...)
	buf = appendString(buf, r.Outcome)
	buf = append(buf, `,"params_hash":`...)
	buf = appendString(buf, r.ParamsHash)
	buf = append(buf, `,"parent_id":`...)
	buf = appendString(buf, r.ParentID)
	buf = append(buf, `,"prev":`...)
	buf = appendString(buf, r.Prev)
	buf = append(buf, `,"provider":`...)
	buf = appendString(buf, r.Provider)
	buf = append(buf, `,"result_hash":`...)
	buf = appendString(buf, r.ResultHash)
	buf = append(buf, `,"runtime":`...)
	buf = appendString(buf, r.Runtime)
	buf = append(buf, `,"seq":`...)
	buf = strconv.AppendUint(buf, r.Seq, 10)
	buf = append(buf, `,"time":`...)
	buf = appendString(buf, r.Time)
	buf = append(buf, `,"tool":`...)
	buf = appendString(buf, r.Tool)
	buf = append(buf, `,"untrusted":`...)
	buf = strconv.AppendBool(buf, r.Untrusted)
	buf = append(buf, `,"version":`...)
	buf = appendString(buf, r.Version)
	return append(buf, '}')
}

// hashField is the length of `,"hash":"sha256:<64 hex>"`.
const hashField = len(`,"hash":"`) + 71 + 1

// encodeLine appends r's full line (hash computed and set in r, trailing
// newline) to buf. The record is encoded once: the hashed form is the line
// without the hash key, which sits between head and tail.
func encodeLine(buf []byte, r *record) []byte {
	start := len(buf)
	buf = appendHead(buf, r)
	at := len(buf)
	buf = appendTail(buf, r)
	r.Hash = digest(buf[start:])
	n := len(buf)
	buf = append(buf, make([]byte, hashField)...)
	copy(buf[at+hashField:], buf[at:n])
	at += copy(buf[at:], `,"hash":"`)
	at += copy(buf[at:], r.Hash)
	buf[at] = '"'
	return append(buf, '\n')
}

// hashRecord returns "sha256:<hex>" of r's canonical form without hash,
// using scratch as a work buffer (returned, possibly grown).
func hashRecord(r *record, scratch []byte) (string, []byte) {
	scratch = appendRecord(scratch[:0], r, false)
	return digest(scratch), scratch
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	var out [7 + 64]byte
	copy(out[:], "sha256:")
	hex.Encode(out[7:], sum[:])
	return string(out[:])
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string. Only '"', '\\' and control
// characters are escaped (\n \r \t and \u00XX for the others); invalid UTF-8
// becomes U+FFFD, as encoding/json decodes it, so a record read back and
// re-encoded is byte-identical.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch c {
			case '"', '\\':
				buf = append(buf, '\\', c)
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// ValueHash returns "sha256:<hex>" of the canonical JSON encoding of v
// (see CanonicalJSON).
func ValueHash(v any) (string, error) {
	b, err := appendCanonical(nil, v, 0)
	if err != nil {
		return "", err
	}
	return digest(b), nil
}

// CanonicalJSON encodes v canonically: object keys sorted by byte order, no
// white space, strings escaped as in the log records (only '"', '\\' and
// control characters; invalid UTF-8 as U+FFFD), integers in decimal, other
// numbers as encoding/json writes float64 (so 2.0 and 2 are the same).
// Values of any Go type encoding/json accepts are first brought to generic
// form, so a struct and the equivalent map encode the same.
func CanonicalJSON(v any) ([]byte, error) {
	return appendCanonical(nil, v, 0)
}

const maxValueDepth = 512

func appendCanonical(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxValueDepth {
		return b, fmt.Errorf("value nested deeper than %d levels", maxValueDepth)
	}
	var err error
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendString(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case float64:
		return appendFloat(b, x)
	case float32:
		return appendFloat(b, float64(x))
	case json.Number:
		if i, perr := strconv.ParseInt(string(x), 10, 64); perr == nil {
			return strconv.AppendInt(b, i, 10), nil
		}
		f, perr := strconv.ParseFloat(string(x), 64)
		if perr != nil {
			return b, fmt.Errorf("bad number %q", string(x))
		}
		return appendFloat(b, f)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendCanonical(b, e, depth+1); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	case []string:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, e)
		}
		return append(b, ']'), nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			if b, err = appendCanonical(b, x[k], depth+1); err != nil {
				return b, err
			}
		}
		return append(b, '}'), nil
	}
	// Any other type: let encoding/json apply struct tags and marshalers,
	// then encode the generic result.
	raw, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var g any
	if err := dec.Decode(&g); err != nil {
		return b, err
	}
	return appendCanonical(b, g, depth)
}

// appendFloat writes f as encoding/json does.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fmt.Errorf("%v is not a JSON number", f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.AppendInt(b, int64(f), 10), nil
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9, as encoding/json writes it.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}
