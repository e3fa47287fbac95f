package audit

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aios-host/aios-host/internal/jsonenc"

	"github.com/aios-host/aios-host/internal/wire"
)

// Record is one record of the log as verify reads it (docs/audit.md
// "Record format"): VerifyOptions.Each gets them.
type Record = record

// record is one line of the log. Its JSON form is canonical: keys in sorted
// order (the field order below), no white space, strings escaped by
// jsonenc.AppendString. hash is the SHA-256 of the canonical form without
// the "hash" key; prev is the hash of the previous record ("" for the first).
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
	// Principal and Session are written only when set (logs written
	// before they existed verify unchanged).
	Principal  string `json:"principal,omitempty"`
	Provider   string `json:"provider"`
	Remote     string `json:"remote,omitempty"` // as Principal
	ResultHash string `json:"result_hash"`
	Runtime    string `json:"runtime"`
	Seq        uint64 `json:"seq"`
	Session    string `json:"session,omitempty"`
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
		buf = jsonenc.AppendString(buf, r.Hash)
	}
	return appendTail(buf, r)
}

// appendHead writes the keys that sort before "hash".
func appendHead(buf []byte, r *record) []byte {
	buf = append(buf, `{"call_id":`...)
	buf = jsonenc.AppendString(buf, r.CallID)
	buf = append(buf, `,"caller":`...)
	buf = jsonenc.AppendString(buf, r.Caller)
	buf = append(buf, `,"error":`...)
	return jsonenc.AppendString(buf, r.Error)
}

// appendTail writes the keys that sort after "hash" and closes the object.
func appendTail(buf []byte, r *record) []byte {
	buf = append(buf, `,"latency_us":`...)
	buf = strconv.AppendInt(buf, r.LatencyUS, 10)
	buf = append(buf, `,"outcome":`...)
	buf = jsonenc.AppendString(buf, r.Outcome)
	buf = append(buf, `,"params_hash":`...)
	buf = jsonenc.AppendString(buf, r.ParamsHash)
	buf = append(buf, `,"parent_id":`...)
	buf = jsonenc.AppendString(buf, r.ParentID)
	buf = append(buf, `,"prev":`...)
	buf = jsonenc.AppendString(buf, r.Prev)
	if r.Principal != "" {
		buf = append(buf, `,"principal":`...)
		buf = jsonenc.AppendString(buf, r.Principal)
	}
	buf = append(buf, `,"provider":`...)
	buf = jsonenc.AppendString(buf, r.Provider)
	if r.Remote != "" {
		buf = append(buf, `,"remote":`...)
		buf = jsonenc.AppendString(buf, r.Remote)
	}
	buf = append(buf, `,"result_hash":`...)
	buf = jsonenc.AppendString(buf, r.ResultHash)
	buf = append(buf, `,"runtime":`...)
	buf = jsonenc.AppendString(buf, r.Runtime)
	buf = append(buf, `,"seq":`...)
	buf = strconv.AppendUint(buf, r.Seq, 10)
	if r.Session != "" {
		buf = append(buf, `,"session":`...)
		buf = jsonenc.AppendString(buf, r.Session)
	}
	buf = append(buf, `,"time":`...)
	buf = jsonenc.AppendString(buf, r.Time)
	buf = append(buf, `,"tool":`...)
	buf = jsonenc.AppendString(buf, r.Tool)
	buf = append(buf, `,"untrusted":`...)
	buf = strconv.AppendBool(buf, r.Untrusted)
	buf = append(buf, `,"version":`...)
	buf = jsonenc.AppendString(buf, r.Version)
	return append(buf, '}')
}

// hashPrefix starts every hash in the log.
const hashPrefix = "sha256:"

// hashField is the length of `,"hash":"sha256:<64 hex>"`.
const hashField = len(`,"hash":"`) + len(hashPrefix) + 64 + 1

// appendEntry appends the record line of e (the next in the chain: seq
// w.seq+1, prev w.prev; trailing newline) to b, and returns b and the
// offset in b of its hash ("sha256:<hex>"). It writes the same bytes as
// appendRecord of the equivalent record, without building one: the
// fields go straight into b, the record is hashed once where it lies
// (the hashed form is the line without the hash key, which is contiguous
// before the hash is spliced in after "error") and the hash is spliced
// in place. ph and rh are the params and result hashes (hasP and hasR
// false: written as "").
func (w *Writer) appendEntry(b []byte, e *Entry, ph [32]byte, hasP bool, rh [32]byte, hasR bool) ([]byte, int) {
	start := len(b)
	b = append(b, `{"call_id":`...)
	b = appendField(b, e.CallID, maxFieldBytes)
	b = append(b, `,"caller":`...)
	b = appendField(b, e.Caller, maxFieldBytes)
	b = append(b, `,"error":`...)
	b = appendField(b, e.Error, w.opts.MaxErrorBytes)
	at := len(b)
	b = append(b, `,"latency_us":`...)
	b = strconv.AppendInt(b, e.Latency.Microseconds(), 10)
	b = append(b, `,"outcome":`...)
	if e.Outcome == "" {
		b = append(b, `"ok"`...)
	} else {
		b = appendField(b, e.Outcome, maxFieldBytes)
	}
	b = append(b, `,"params_hash":`...)
	b = appendDigest(b, &ph, hasP)
	b = append(b, `,"parent_id":`...)
	b = appendField(b, e.ParentID, maxFieldBytes)
	b = append(b, `,"prev":"`...)
	b = append(b, w.prev...)
	b = append(b, '"')
	if e.Principal != "" {
		b = append(b, `,"principal":`...)
		b = appendField(b, e.Principal, maxFieldBytes)
	}
	b = append(b, `,"provider":`...)
	b = appendField(b, e.Provider, maxFieldBytes)
	if e.Remote != "" {
		b = append(b, `,"remote":`...)
		b = appendField(b, e.Remote, maxFieldBytes)
	}
	b = append(b, `,"result_hash":`...)
	b = appendDigest(b, &rh, hasR)
	b = append(b, `,"runtime":`...)
	b = appendField(b, e.Runtime, maxFieldBytes)
	b = append(b, `,"seq":`...)
	b = strconv.AppendUint(b, w.seq+1, 10)
	if e.Session != "" {
		b = append(b, `,"session":`...)
		b = appendField(b, e.Session, maxFieldBytes)
	}
	b = append(b, `,"time":"`...)
	t := e.Time
	if t.IsZero() {
		t = time.Now()
	}
	b = w.clock.append(b, inRFC3339(t))
	b = append(b, `","tool":`...)
	b = appendField(b, e.Tool, maxFieldBytes)
	b = append(b, `,"untrusted":`...)
	b = strconv.AppendBool(b, e.Untrusted)
	b = append(b, `,"version":`...)
	b = appendField(b, e.Version, maxFieldBytes)
	b = append(b, '}')
	sum := sha256.Sum256(b[start:])
	n := len(b)
	b = slices.Grow(b, hashField+1)[:n+hashField]
	copy(b[at+hashField:], b[at:n])
	i := at + copy(b[at:], `,"hash":"`+hashPrefix)
	hexDigest(b[i:i+64], &sum)
	b[i+64] = '"'
	return append(b, '\n'), i - len(hashPrefix)
}

// maxFieldBytes bounds each string of a record but the error (which
// Options.MaxErrorBytes bounds): a client chooses some of them (the tool
// name of a call that finds no tool, the parent_id of tools/call), and a
// record must stay well below MaxLineBytes, or verify could check nothing
// from it on.
const maxFieldBytes = 1024

// appendField appends s as a JSON string, cut to n bytes (at a rune
// boundary) and marked "…(truncated)".
func appendField(b []byte, s string, n int) []byte {
	if len(s) > n {
		s = wire.CutText(s, n, "…(truncated)")
	}
	return jsonenc.AppendString(b, s)
}

// appendDigest appends "sha256:<hex>" of sum, or "" when !ok.
func appendDigest(b []byte, sum *[32]byte, ok bool) []byte {
	if !ok {
		return append(b, `""`...)
	}
	b = append(b, `"`+hashPrefix...)
	n := len(b)
	b = slices.Grow(b, 65)[:n+64]
	hexDigest(b[n:n+64], sum)
	return append(b, '"')
}

// hexDigest writes sum in lower-case hex to dst[:64], as hex.Encode does,
// four bytes at a time: each byte's two nibbles are spread into two bytes
// of a uint64 and turned into digits with byte-wise arithmetic (no table,
// no carries between bytes). The log writes three digests a record; this
// takes a quarter of hex.Encode's time (BenchmarkHexDigest).
func hexDigest(dst []byte, sum *[32]byte) {
	_ = dst[63]
	for i := 0; i < 32; i += 4 {
		x := uint64(sum[i]) | uint64(sum[i+1])<<16 | uint64(sum[i+2])<<32 | uint64(sum[i+3])<<48
		n := (x>>4)&0x000f000f000f000f | (x&0x000f000f000f000f)<<8 // nibbles, in output order
		// Each byte: n + '0', plus 'a'-'0'-10 when n >= 10 (n+6 carries into bit 4).
		over := ((n + 0x0606060606060606) >> 4) & 0x0101010101010101
		binary.LittleEndian.PutUint64(dst[2*i:], n+0x3030303030303030+over*('a'-'0'-10))
	}
}

// hashRecord returns "sha256:<hex>" of r's canonical form without hash,
// using scratch as a work buffer (returned, possibly grown).
func hashRecord(r *record, scratch []byte) (string, []byte) {
	scratch = appendRecord(scratch[:0], r, false)
	return digest(scratch), scratch
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	var out [len(hashPrefix) + 64]byte
	copy(out[:], hashPrefix)
	hexDigest(out[len(hashPrefix):], &sum)
	return string(out[:])
}

// ValueHash returns "sha256:<hex>" of the canonical JSON encoding of v
// (see CanonicalJSON).
func ValueHash(v any) (string, error) {
	var c canonEncoder
	b, err := c.append(nil, v, 0)
	if err != nil {
		return "", err
	}
	return digest(b), nil
}

// CanonicalJSON encodes v canonically: object keys sorted by byte order, no
// white space, strings escaped as in the log records (only '"', '\\' and
// control characters; invalid UTF-8 as U+FFFD), integers in decimal, other
// numbers as encoding/json writes float64 but a whole one within −2^63 …
// 2^64 as its exact integer (so 2.0 and 2 are the same).
// Values of any Go type encoding/json accepts are first brought to generic
// form, so a struct and the equivalent map encode the same.
func CanonicalJSON(v any) ([]byte, error) {
	var c canonEncoder
	return c.append(nil, v, 0)
}

const maxValueDepth = 512

// canonEncoder writes canonical JSON. Its scratch stack of object members
// is reused from value to value, so encoding generic values (nil, bool,
// numbers, strings, []any, map[string]any) allocates nothing once the
// output buffer and the stack have grown.
type canonEncoder struct {
	members []member
}

type member struct {
	k string
	v any
}

func (c *canonEncoder) append(b []byte, v any, depth int) ([]byte, error) {
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
		return jsonenc.AppendString(b, x), nil
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
		// As encoding/json writes a float32 (a struct's field): its
		// shortest decimal, 0.1, not the float64 it widens to.
		f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
		return appendFloat(b, f)
	case json.Number:
		if i, perr := strconv.ParseInt(string(x), 10, 64); perr == nil {
			return strconv.AppendInt(b, i, 10), nil
		}
		if u, perr := strconv.ParseUint(string(x), 10, 64); perr == nil {
			return strconv.AppendUint(b, u, 10), nil
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
			if b, err = c.append(b, e, depth+1); err != nil {
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
			b = jsonenc.AppendString(b, e)
		}
		return append(b, ']'), nil
	case map[string]any:
		return c.appendObject(b, x, depth)
	}
	// Any other type: let encoding/json apply struct tags and marshalers,
	// then encode the generic result.
	raw, err := marshalRecovering(v)
	if err != nil {
		return b, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var g any
	if err := dec.Decode(&g); err != nil {
		return b, err
	}
	return c.append(b, g, depth)
}

// marshalRecovering is json.Marshal, a panic of v's own MarshalJSON (an
// embedder's value: the host logs the params of a call refused before
// they are checked as its caller gave them) an error: it ran on the
// writer's goroutine and took the process down with the records in hand.
func marshalRecovering(v any) (raw []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			raw, err = nil, fmt.Errorf("encoding a %T as JSON panicked: %v", v, r)
		}
	}()
	return json.Marshal(v)
}

// appendObject writes m with its keys in byte order. The members are
// collected on c's stack (nested objects push above them), sorted there,
// and popped at the end.
func (c *canonEncoder) appendObject(b []byte, m map[string]any, depth int) ([]byte, error) {
	if len(m) == 1 { // the common small case: no stack, no sort
		for k, v := range m {
			b = append(jsonenc.AppendString(append(b, '{'), k), ':')
			b, err := c.append(b, v, depth+1)
			if err != nil {
				return b, err
			}
			return append(b, '}'), nil
		}
	}
	base := len(c.members)
	valid := true
	for k, v := range m {
		c.members = append(c.members, member{k, v})
		valid = valid && utf8.ValidString(k)
	}
	sortMembers(c.members[base:])
	if !valid {
		c.members = c.members[:base+len(validKeys(c.members[base:]))]
	}
	end := len(c.members)
	b = append(b, '{')
	var err error
	for i := base; i < end; i++ {
		if i > base {
			b = append(b, ',')
		}
		mb := c.members[i] // c.members may grow (and move) below
		b = jsonenc.AppendString(b, mb.k)
		b = append(b, ':')
		if b, err = c.append(b, mb.v, depth+1); err != nil {
			break
		}
	}
	clear(c.members[base:end]) // drop references to the values
	c.members = c.members[:base]
	if err != nil {
		return b, err
	}
	return append(b, '}'), nil
}

// validKeys returns ms (sorted by key) with each key as it is written
// (each byte of invalid UTF-8 as U+FFFD, as jsonenc.AppendString writes
// it), sorted again by that key and, where two keys become one, with the
// last of them only: what encoding/json makes of the object sent to a
// client (sorted by the Go keys, the later value of a repeated key kept).
// Sorted by the Go keys alone, {"a\x80", "a\u0100"} was written
// unsorted, and two keys as one repeated key, so the value's hash was not
// the hash of the value its client received.
func validKeys(ms []member) []member {
	for i := range ms {
		if !utf8.ValidString(ms[i].k) {
			var b []byte
			for j := 0; j < len(ms[i].k); {
				r, size := utf8.DecodeRuneInString(ms[i].k[j:])
				if r == utf8.RuneError && size == 1 {
					b = append(b, "\ufffd"...)
				} else {
					b = append(b, ms[i].k[j:j+size]...)
				}
				j += size
			}
			ms[i].k = string(b)
		}
	}
	slices.SortStableFunc(ms, func(a, b member) int { return strings.Compare(a.k, b.k) })
	out := ms[:0]
	for i := range ms {
		if i+1 < len(ms) && ms[i+1].k == ms[i].k {
			continue // the later one wins
		}
		out = append(out, ms[i])
	}
	clear(ms[len(out):])
	return out
}

// sortMembers sorts by key: insertion sort for the small objects that
// params usually are, slices.SortFunc otherwise.
func sortMembers(ms []member) {
	if len(ms) > 12 {
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.k, b.k) })
		return
	}
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && ms[j].k < ms[j-1].k; j-- {
			ms[j], ms[j-1] = ms[j-1], ms[j]
		}
	}
}

// appendFloat writes f as encoding/json does, but a whole f from −2^63
// up to 2^64 as its exact integer.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fmt.Errorf("%v is not a JSON number", f)
	}
	// A whole float within the host's integers is written as its exact
	// integer, as that integer is (encoding/json's shortest digits of
	// 2^60, 1152921504606847000, are another integer's).
	if f == math.Trunc(f) && f >= math.MinInt64 && f < math.MaxUint64 {
		if f < math.MaxInt64 {
			return strconv.AppendInt(b, int64(f), 10), nil
		}
		return strconv.AppendUint(b, uint64(f), 10), nil
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

// Bounds of the times RFC 3339 writes: four-digit years.
var (
	minRFC3339 = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	maxRFC3339 = time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC)
)

// inRFC3339 is t, or the nearest time RFC 3339 can write when t is
// outside years 0000 to 9999 (a clock gone wrong, an embedder's Entry):
// written as it was ("10000-01-01T00:00:00Z"), the record was one that
// verify refused as edited, and Open refused to continue a log it ended.
func inRFC3339(t time.Time) time.Time {
	switch {
	case t.Before(minRFC3339):
		return minRFC3339
	case t.After(maxRFC3339):
		return maxRFC3339
	}
	return t
}

// timeFormatter writes times as t.UTC().AppendFormat(b, time.RFC3339Nano)
// does, formatting the date and time of day once per second: records of
// the same second only differ in their nanoseconds.
type timeFormatter struct {
	sec    int64
	prefix []byte // "2006-01-02T15:04:05" of sec; empty: none yet
}

func (tf *timeFormatter) append(b []byte, t time.Time) []byte {
	t = t.UTC()
	if y := t.Year(); y < 1 || y > 9999 {
		return t.AppendFormat(b, time.RFC3339Nano)
	}
	if sec := t.Unix(); sec != tf.sec || len(tf.prefix) == 0 {
		tf.prefix = t.AppendFormat(tf.prefix[:0], "2006-01-02T15:04:05")
		tf.sec = sec
	}
	b = append(b, tf.prefix...)
	if ns := t.Nanosecond(); ns != 0 {
		var d [10]byte
		d[0] = '.'
		for i := 9; i > 0; i-- {
			d[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for d[n-1] == '0' {
			n--
		}
		b = append(b, d[:n]...)
	}
	return append(b, 'Z')
}
