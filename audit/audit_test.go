package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/aios-host/aios-host/internal/testutil"

	"github.com/aios-host/aios-host/internal/wire"
)

func entry(i int) Entry {
	return Entry{
		Time:     time.Date(2026, 1, 2, 3, 4, 5, i, time.UTC),
		CallID:   fmt.Sprintf("c%d", i),
		Caller:   "cli",
		Provider: "org.aios.samples",
		Tool:     fmt.Sprintf("t%d", i),
		Version:  "1.0.0",
		Runtime:  "native",
		Params:   map[string]any{"i": int64(i), "s": "x\"<>&\n"},
		Result:   map[string]any{"ok": true},
		Latency:  time.Duration(i) * time.Microsecond,
	}
}

// writeLog writes n records to a fresh log and returns its path and lines.
func writeLog(t testing.TB, n int) (string, [][]byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		w.Log(entry(i))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, readLines(t, path)
}

func readLines(t testing.TB, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func join(lines [][]byte) []byte { return bytes.Join(lines, nil) }

func TestRoundTrip(t *testing.T) {
	path, lines := writeLog(t, 5)
	if len(lines) != 5 {
		t.Fatalf("got %d lines, want 5", len(lines))
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := Verify(f)
	if err != nil || n != 5 {
		t.Fatalf("Verify = %d, %v; want 5, nil", n, err)
	}
	rec, reason := checkLine(bytes.TrimSuffix(lines[2], []byte("\n")))
	if reason != "" {
		t.Fatal(reason)
	}
	wantParams, _ := ValueHash(entry(3).Params)
	wantResult, _ := ValueHash(entry(3).Result)
	if rec.Seq != 3 || rec.CallID != "c3" || rec.Tool != "t3" || rec.Outcome != "ok" ||
		rec.ParamsHash != wantParams || rec.ResultHash != wantResult || rec.LatencyUS != 3 ||
		rec.Time != "2026-01-02T03:04:05.000000003Z" || rec.Runtime != "native" {
		t.Fatalf("record 3 = %+v", rec)
	}
	first, _ := checkLine(bytes.TrimSuffix(lines[0], []byte("\n")))
	if first.Prev != "" || rec.Prev == "" {
		t.Fatalf("prev of first = %q, of third = %q", first.Prev, rec.Prev)
	}
}

func TestErrorRecord(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w, err := Open(path, Options{MaxErrorBytes: 10})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(Entry{CallID: "x", Outcome: "ProviderError", Error: "ééééééééé long message", Result: "ignored", Untrusted: true})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, path)
	rec, reason := checkLine(bytes.TrimSuffix(lines[0], []byte("\n")))
	if reason != "" {
		t.Fatal(reason)
	}
	if rec.Outcome != "ProviderError" || rec.ResultHash != "" || !rec.Untrusted {
		t.Fatalf("record = %+v", rec)
	}
	if rec.Error != "ééééé…(truncated)" {
		t.Fatalf("error = %q", rec.Error)
	}
	if _, err := time.Parse(time.RFC3339Nano, rec.Time); err != nil {
		t.Fatalf("zero Time not filled in: %v", err)
	}
}

func TestTamperDetected(t *testing.T) {
	_, lines := writeLog(t, 6)
	edit := func(i int, from, to string) [][]byte {
		out := append([][]byte(nil), lines...)
		out[i] = bytes.Replace(lines[i], []byte(from), []byte(to), 1)
		if bytes.Equal(out[i], lines[i]) {
			t.Fatalf("edit of line %d changed nothing", i+1)
		}
		return out
	}
	// rehash returns line i edited and with a recomputed hash, as a forger would.
	rehash := func(i int, from, to string) [][]byte {
		out := edit(i, from, to)
		r, _ := checkLine(bytes.TrimSuffix(out[i], []byte("\n")))
		r.Hash, _ = hashRecord(&r, nil)
		out[i] = append(appendRecord(nil, &r, true), '\n')
		return out
	}
	del := func(i int) [][]byte {
		out := append([][]byte(nil), lines[:i]...)
		return append(out, lines[i+1:]...)
	}
	swap := func(i, j int) [][]byte {
		out := append([][]byte(nil), lines...)
		out[i], out[j] = out[j], out[i]
		return out
	}
	insert := func(i int, l []byte) [][]byte {
		out := append([][]byte(nil), lines[:i]...)
		out = append(out, l)
		return append(out, lines[i:]...)
	}
	cases := []struct {
		name   string
		lines  [][]byte
		line   int
		reason string
	}{
		{"edit tool", edit(2, `"tool":"t3"`, `"tool":"tX"`), 3, "hash mismatch"},
		{"edit outcome", edit(4, `"outcome":"ok"`, `"outcome":"no"`), 5, "hash mismatch"},
		{"edit hash", edit(1, `"hash":"sha256:`, `"hash":"sha256:0`), 2, "not a sha256 digest"},
		{"edit and rehash", rehash(2, `"caller":"cli"`, `"caller":"root"`), 4, "line 3 was edited"},
		{"respace", edit(3, `,"caller"`, `, "caller"`), 4, "canonical form"},
		{"extra key", edit(3, `{"call_id"`, `{"x":1,"call_id"`), 4, "unknown field"},
		{"bad json", edit(1, `}`, ``), 2, "not a valid record"},
		{"trailing brace", edit(2, "}\n", "}}\n"), 3, "trailing data after the record"}, // json.Decoder.More is false before it
		{"delete first", del(0), 1, "seq is 2, want 1"},
		{"delete middle", del(3), 4, "seq is 5, want 4"},
		{"reorder", swap(2, 3), 3, "seq is 4, want 3"},
		{"insert copy", insert(3, lines[1]), 4, "seq is 2, want 4: this line is record 2 (line 2) again"},
		{"insert blank", insert(2, []byte("\n")), 3, "empty line"},
		{"truncated last line", append(append([][]byte(nil), lines[:5]...), lines[5][:40]), 6, "incomplete last record"},
		{"missing newline", append(append([][]byte(nil), lines[:5]...), bytes.TrimSuffix(lines[5], []byte("\n"))), 6, "incomplete last record"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Verify(bytes.NewReader(join(c.lines)))
			var ve *VerifyError
			if !errors.As(err, &ve) {
				t.Fatalf("Verify = %v, want *VerifyError", err)
			}
			if ve.Line != c.line || !strings.Contains(ve.Reason, c.reason) {
				t.Fatalf("Verify = line %d %q; want line %d containing %q", ve.Line, ve.Reason, c.line, c.reason)
			}
		})
	}
}

func TestVerifyAnchored(t *testing.T) {
	_, lines := writeLog(t, 5)
	n, head, err := Head(bytes.NewReader(join(lines)))
	if err != nil || n != 5 {
		t.Fatalf("Head = %d, %v", n, err)
	}
	a, err := ParseAnchor(Anchor{Seq: 5, Hash: head}.String())
	if err != nil || a.Seq != 5 || a.Hash != head {
		t.Fatalf("ParseAnchor(String()) = %+v, %v", a, err)
	}
	third, _ := checkLine(bytes.TrimSuffix(lines[2], []byte("\n")))
	// A forger rewrites records 3..5 with fresh hashes: the chain verifies,
	// the anchor of record 5 (or 3) does not.
	forged := append([][]byte(nil), lines[:2]...)
	prev := ""
	if r, _ := checkLine(bytes.TrimSuffix(lines[1], []byte("\n"))); true {
		prev = r.Hash
	}
	for _, l := range lines[2:] {
		r, _ := checkLine(bytes.TrimSuffix(l, []byte("\n")))
		r.Caller, r.Prev = "forged", prev
		r.Hash, _ = hashRecord(&r, nil)
		prev = r.Hash
		forged = append(forged, append(appendRecord(nil, &r, true), '\n'))
	}
	if _, err := Verify(bytes.NewReader(join(forged))); err != nil {
		t.Fatalf("the forged log should pass the chain check: %v", err)
	}
	cases := []struct {
		name   string
		log    [][]byte
		anchor Anchor
		line   int
		reason string
	}{
		{"intact", lines, a, 0, ""},
		{"appended after the anchor", lines, Anchor{Seq: 3, Hash: third.Hash}, 0, ""},
		{"cut from the end", lines[:3], a, 4, "records were cut from the end"},
		{"empty", nil, a, 1, "ends after record 0"},
		{"rewritten", forged, a, 5, "differs from the anchor"},
		{"rewritten at the anchor", forged, Anchor{Seq: 3, Hash: third.Hash}, 3, "differs from the anchor"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := VerifyAnchored(bytes.NewReader(join(c.log)), c.anchor)
			if c.line == 0 {
				if err != nil {
					t.Fatalf("VerifyAnchored = %v", err)
				}
				return
			}
			var ve *VerifyError
			if !errors.As(err, &ve) || ve.Line != c.line || !strings.Contains(ve.Reason, c.reason) {
				t.Fatalf("VerifyAnchored = %v; want line %d containing %q", err, c.line, c.reason)
			}
		})
	}
	for _, bad := range []string{"", "5", "0:" + head, "x:" + head, "5:sha256:abc", "5:" + strings.ToUpper(head), "5:md5:" + strings.Repeat("0", 64)} {
		if _, err := ParseAnchor(bad); err == nil {
			t.Errorf("ParseAnchor(%q) succeeded", bad)
		}
	}
}

func TestVerifyEmpty(t *testing.T) {
	n, last, err := Head(strings.NewReader(""))
	if n != 0 || last != "" || err != nil {
		t.Fatalf("Head(empty) = %d, %q, %v", n, last, err)
	}
}

func TestReopenContinues(t *testing.T) {
	path, _ := writeLog(t, 3)
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(entry(4))
	w.Log(entry(5))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	n, err := Verify(bytes.NewReader(data))
	if err != nil || n != 5 {
		t.Fatalf("Verify after reopen = %d, %v; want 5, nil", n, err)
	}
}

func TestReopenRefusesDamagedTail(t *testing.T) {
	path, lines := writeLog(t, 3)
	lines[2] = bytes.Replace(lines[2], []byte(`"tool":"t3"`), []byte(`"tool":"t9"`), 1)
	if err := os.WriteFile(path, join(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, Options{})
	if err == nil || !strings.Contains(err.Error(), "refusing to append") {
		t.Fatalf("Open of damaged log = %v, want refusal", err)
	}
}

// TestCrashTruncatedLastLine simulates a crash in the middle of a write.
func TestCrashTruncatedLastLine(t *testing.T) {
	path, lines := writeLog(t, 4)
	crashed := append(join(lines[:3]), lines[3][:25]...)
	if err := os.WriteFile(path, crashed, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Verify(bytes.NewReader(crashed)); err == nil {
		t.Fatal("Verify accepted a log with a cut last line")
	}
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "incomplete record") {
		t.Fatalf("Open without repair = %v, want an incomplete-record error", err)
	}
	w, err := Open(path, Options{RepairTail: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(entry(99))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if n, err := Verify(bytes.NewReader(data)); err != nil || n != 4 {
		t.Fatalf("Verify after repair = %d, %v; want 4, nil", n, err)
	}
}

func TestCrashOnlyPartialLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	if err := os.WriteFile(path, []byte(`{"call_id":"x`), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, Options{RepairTail: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Log(entry(1))
	w.Close()
	data, _ := os.ReadFile(path)
	if n, err := Verify(bytes.NewReader(data)); err != nil || n != 1 {
		t.Fatalf("Verify = %d, %v; want 1, nil", n, err)
	}
}

func TestConcurrentLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w, err := Open(path, Options{Buffer: 16, SyncEvery: 100, SyncInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	const goroutines, each = 20, 250
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				e := entry(i)
				e.CallID = fmt.Sprintf("g%d-%d", g, i)
				w.Log(e)
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	n, err := Verify(bytes.NewReader(data))
	if err != nil || n != goroutines*each {
		t.Fatalf("Verify = %d, %v; want %d", n, err, goroutines*each)
	}
	for g := range goroutines {
		if !bytes.Contains(data, fmt.Appendf(nil, `"call_id":"g%d-%d"`, g, each-1)) {
			t.Fatalf("record g%d-%d missing", g, each-1)
		}
	}
}

func TestSyncMakesRecordsDurable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w, err := Open(path, Options{SyncInterval: time.Hour, SyncEvery: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Log(entry(1))
	w.Log(entry(2))
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if n := len(readLines(t, path)); n != 2 {
		t.Fatalf("after Sync the file has %d lines, want 2", n)
	}
}

func TestLockAndLogAfterClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{}); !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second Open = %v, want in-use error", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close = %v", err)
	}
	w.Log(entry(1)) // must not panic or block
	if w.Dropped() != 1 {
		t.Fatalf("Dropped = %d, want 1", w.Dropped())
	}
	var nilW *Writer
	nilW.Log(entry(1))
	if err := nilW.Close(); err != nil {
		t.Fatal(err)
	}
}

type point struct {
	Y int    `json:"y"`
	X string `json:"x"`
}

func TestValueHash(t *testing.T) {
	cases := []struct {
		name string
		a, b any
		same bool
	}{
		{"struct equals map", point{Y: 1, X: "a"}, map[string]any{"x": "a", "y": int64(1)}, true},
		{"key order irrelevant", map[string]any{"a": 1, "b": 2}, map[string]any{"b": 2, "a": 1}, true},
		{"int equals int64", 5, int64(5), true},
		{"different values", map[string]any{"a": 1}, map[string]any{"a": 2}, false},
		{"null vs empty", nil, map[string]any{}, false},
	}
	for _, c := range cases {
		ha, err := ValueHash(c.a)
		if err != nil {
			t.Fatal(err)
		}
		hb, _ := ValueHash(c.b)
		if (ha == hb) != c.same {
			t.Errorf("%s: %s vs %s, want same=%v", c.name, ha, hb, c.same)
		}
	}
	got, _ := CanonicalJSON(map[string]any{"b": []any{1.5, "<&>"}, "a": nil})
	if string(got) != `{"a":null,"b":[1.5,"<&>"]}` {
		t.Errorf("CanonicalJSON = %s", got)
	}
	if _, err := ValueHash(make(chan int)); err == nil {
		t.Error("ValueHash(chan) succeeded")
	}
}

func TestAppendStringMatchesDecoder(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\", "\x00\x01\x1f\x7f", "tab\t nl\n cr\r", "é中🙂", "bad\xff\xfeutf8", "\u2028"} {
		r := record{Caller: s, Hash: "sha256:" + strings.Repeat("0", 64), Time: "2026-01-01T00:00:00Z"}
		r.Hash, _ = hashRecord(&r, nil)
		line := appendRecord(nil, &r, true)
		back, reason := checkLine(line)
		if reason != "" {
			t.Errorf("%q: %s", s, reason)
		}
		if utf8.ValidString(s) && back.Caller != s {
			t.Errorf("%q came back as %q", s, back.Caller)
		}
	}
}

func FuzzVerify(f *testing.F) {
	_, lines := writeLog(f, 3)
	f.Add(join(lines))
	f.Add(join(lines[1:]))
	f.Add(append(join(lines), lines[0]...))
	f.Add([]byte(""))
	f.Add([]byte("\n"))
	f.Add([]byte("{}\n"))
	f.Add(lines[0][:30])
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := Verify(bytes.NewReader(data))
		if err == nil {
			if want := bytes.Count(data, []byte("\n")); n != want {
				t.Fatalf("Verify ok with %d records but %d lines", n, want)
			}
			return
		}
		var ve *VerifyError
		if !errors.As(err, &ve) || ve.Line != n+1 {
			t.Fatalf("Verify = %d, %v; want *VerifyError on line %d", n, err, n+1)
		}
	})
}

// BenchmarkAuditLog measures the hot-path cost of Log alone: the writer
// goroutine is held back and the benchmark empties the queue itself (timer
// stopped) whenever it fills, so no hashing or I/O is measured.
func BenchmarkAuditLog(b *testing.B) {
	path := filepath.Join(b.TempDir(), "a.jsonl")
	hold := make(chan struct{})
	w, err := Open(path, Options{Buffer: 8192, hold: hold})
	if err != nil {
		b.Fatal(err)
	}
	e := entry(1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%8192 == 8191 {
			b.StopTimer()
			w.mu.Lock()
			w.q = w.q[:0]
			w.mu.Unlock()
			b.StartTimer()
		}
		w.Log(e)
	}
	b.StopTimer()
	w.mu.Lock()
	w.q = w.q[:0]
	w.mu.Unlock()
	close(hold)
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkAuditThroughput measures records per second end to end (Log from
// several goroutines, hashing, encoding, writing, grouped fsync).
func BenchmarkAuditThroughput(b *testing.B) {
	path := filepath.Join(b.TempDir(), "a.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	e := entry(1)
	b.ReportAllocs()
	cpu := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w.Log(e)
		}
	})
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkAuditEncode is the encoder's work per record alone — hash
// params and result, encode, hash and chain the record — without the
// queue, the I/O goroutine or the kernel.
func BenchmarkAuditEncode(b *testing.B) {
	hold := make(chan struct{})
	w, err := Open(filepath.Join(b.TempDir(), "a.jsonl"), Options{hold: hold})
	if err != nil {
		b.Fatal(err)
	}
	defer func() { close(hold); w.Close() }()
	e := Entry{Time: time.Now(), CallID: "m3k9x2-12345", Caller: "bench", Provider: "org.bench.echo", Tool: "echo",
		Version: "1.0.0", Runtime: "native", Params: map[string]any{"msg": "hello", "n": int64(42)},
		Result: map[string]any{"msg": "hello", "n": int64(42)}, Latency: 800 * time.Nanosecond}
	b.ReportAllocs()
	for b.Loop() {
		var h valueHashes
		w.vh.hash(&e, &h)
		w.write(&e, &h)
		w.out = w.out[:0]
		w.pending = 0
	}
}

// processCPU returns the CPU time (user + system) this process has used.
func processCPU() time.Duration {
	return testutil.ProcessCPU()
}

// TestWriterEncodingMatchesVerify writes records of every shape the
// writer's hand-written appender handles and checks that Verify (which
// re-encodes each record with appendRecord and compares bytes) accepts
// them, and that the hashes are those of the documented canonical form.
func TestWriterEncodingMatchesVerify(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w, err := Open(path, Options{MaxErrorBytes: 16})
	if err != nil {
		t.Fatal(err)
	}
	big := map[string]any{}
	for i := range 40 {
		big[fmt.Sprintf("k%02d", 39-i)] = map[string]any{"n": int64(i), "z": []any{nil, true, 1.5}}
	}
	entries := []Entry{
		{CallID: "c1", Caller: "cli", Tool: "echo", Params: map[string]any{"b": "x", "a": int64(1)}, Result: "ok", Time: time.Unix(1, 0)},
		{CallID: "q\"\\\n\t\x01", Caller: "é中🙂", Tool: "bad\xffutf8", Params: "\u2028", Outcome: "ok", Result: nil, Untrusted: true},
		{CallID: "c3", Outcome: "ProviderError", Error: strings.Repeat("é", 40), Params: nil, Result: "ignored"},
		{CallID: "c4", Params: make(chan int), Result: map[string]any{}}, // unhashable params: empty hash
		{CallID: "c5", ParentID: "c4", Params: big, Result: []any{big, big}, Latency: 1500 * time.Microsecond, Version: "2.0.0"},
		{CallID: "c6", Params: point{Y: 2, X: "s"}, Result: float64(2.5e-9)},
		{CallID: "c7", Principal: "token:peer#0", Session: "S\"1é", Result: "x"},
		{CallID: "c8", Principal: "uid:1001"},
		{CallID: "c9", Session: strings.Repeat("s", 2000)},
	}
	for _, e := range entries {
		w.Log(e)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	lines := readLines(t, path)
	if n, err := Verify(bytes.NewReader(join(lines))); err != nil || n != len(entries) {
		t.Fatalf("Verify = %d, %v; want %d", n, err, len(entries))
	}
	for i, e := range entries {
		rec, reason := checkLine(bytes.TrimSuffix(lines[i], []byte("\n")))
		if reason != "" {
			t.Fatalf("line %d: %s", i+1, reason)
		}
		wantP, err := ValueHash(e.Params)
		if err != nil {
			wantP = ""
		}
		wantR := ""
		if e.Outcome == "" || e.Outcome == "ok" {
			wantR, _ = ValueHash(e.Result)
		}
		if rec.ParamsHash != wantP || rec.ResultHash != wantR {
			t.Errorf("line %d: params_hash %q result_hash %q; want %q %q", i+1, rec.ParamsHash, rec.ResultHash, wantP, wantR)
		}
		if rec.Error != wire.CutText(e.Error, 16, "…(truncated)") {
			t.Errorf("line %d: error %q", i+1, rec.Error)
		}
	}
}

// TestCanonicalMatchesEncodingJSON compares the canonical encoder with
// encoding/json (which also sorts map keys) on values where the two
// agree: no HTML escaping, no U+2028, no control characters.
func TestCanonicalMatchesEncodingJSON(t *testing.T) {
	wide := map[string]any{}
	for i := range 30 {
		wide[string(rune('z'-i%26))+fmt.Sprint(i)] = int64(i)
	}
	values := []any{
		nil, true, "plain", int64(-7), 3.25, 1e21, 1e-7, []any{},
		map[string]any{},
		map[string]any{"b": map[string]any{"d": []any{map[string]any{"y": 1.0, "x": "é"}}, "c": nil}, "a": wide},
		[]any{wide, map[string]any{"k": wide}, "s"},
	}
	var c canonEncoder
	var buf []byte
	for _, v := range values {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		var err error
		buf, err = c.append(buf[:0], v, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(buf); got != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("canonical %s\n     json %s", got, want.String())
		}
		if len(c.members) != 0 {
			t.Errorf("member stack not emptied: %d left", len(c.members))
		}
	}
}

// TestEncodeAllocatesNothing: once its buffers have grown, the writer
// hashes and encodes a record without allocating.
func TestEncodeAllocatesNothing(t *testing.T) {
	hold := make(chan struct{})
	w, err := Open(filepath.Join(t.TempDir(), "a.jsonl"), Options{hold: hold})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { close(hold); w.Close() }()
	e := entry(7)
	e.Params = map[string]any{"msg": "hello", "n": int64(42), "nested": map[string]any{"b": []any{1.5, "x"}, "a": nil}}
	var h valueHashes
	w.vh.hash(&e, &h)
	w.write(&e, &h)
	w.out = w.out[:0]
	allocs := testing.AllocsPerRun(200, func() {
		w.vh.hash(&e, &h)
		w.write(&e, &h)
		w.out = w.out[:0]
		w.pending = 0
	})
	if allocs != 0 {
		t.Fatalf("write allocates %.1f times per record, want 0", allocs)
	}
}

// TestRecordsReachFileWithoutSync: a group is written FlushDelay after its
// first record, without Sync or Close.
func TestRecordsReachFileWithoutSync(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w, err := Open(path, Options{FlushDelay: 2 * time.Millisecond, SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := 1; i <= 3; i++ {
		w.Log(entry(i))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		if bytes.Count(data, []byte("\n")) == 3 {
			if n, err := Verify(bytes.NewReader(data)); err != nil || n != 3 {
				t.Fatalf("Verify = %d, %v", n, err)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("records not in the file after 5s: %q", data)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestBackPressureLosesNothing: with a tiny queue and the writer held,
// Log blocks instead of dropping; every record arrives once released.
func TestBackPressureLosesNothing(t *testing.T) {
	hold := make(chan struct{})
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w, err := Open(path, Options{Buffer: 4, hold: hold})
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	logged := make(chan struct{})
	go func() {
		for i := 1; i <= n; i++ {
			w.Log(entry(i))
		}
		close(logged)
	}()
	select {
	case <-logged:
		t.Fatal("Log did not block on a full queue")
	case <-time.After(50 * time.Millisecond):
	}
	close(hold)
	<-logged
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if got, err := Verify(bytes.NewReader(data)); err != nil || got != n || w.Dropped() != 0 {
		t.Fatalf("Verify = %d, %v, dropped %d; want %d, nil, 0", got, err, w.Dropped(), n)
	}
	for i := 1; i <= n; i++ {
		if !bytes.Contains(data, fmt.Appendf(nil, `"call_id":"c%d"`, i)) {
			t.Fatalf("record c%d missing", i)
		}
	}
}

// TestCloseDuringLog: Logs racing Close either land in the file or are
// counted as dropped; none is lost silently.
func TestCloseDuringLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w, err := Open(path, Options{Buffer: 8})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	const goroutines, each = 4, 200
	for range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				w.Log(entry(i))
			}
		}()
	}
	time.Sleep(time.Millisecond)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	data, _ := os.ReadFile(path)
	n, err := Verify(bytes.NewReader(data))
	if err != nil || int64(n)+w.Dropped() != goroutines*each {
		t.Fatalf("Verify = %d, %v; dropped %d; want %d in all", n, err, w.Dropped(), goroutines*each)
	}
}

// TestParallelHashingMatchesSerial writes the same entries through a writer
// that hashes values on its helper goroutine (GOMAXPROCS 2, batches held
// back so they are large) and through one that hashes them itself
// (GOMAXPROCS 1): the two logs must be byte for byte the same and verify.
func TestParallelHashingMatchesSerial(t *testing.T) {
	entries := make([]Entry, 3000)
	for i := range entries {
		entries[i] = entry(i)
		switch i % 5 {
		case 1:
			entries[i].Outcome, entries[i].Error = "ProviderError", "boom"
		case 2:
			entries[i].Params = make(chan int) // not hashable: ""
		case 3:
			entries[i].Result = []any{int64(i), "r", map[string]any{"z": 1.5, "a": nil}}
		}
	}
	write := func(procs int) (string, *Writer) {
		prev := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(prev)
		hold := make(chan struct{})
		path := filepath.Join(t.TempDir(), "a.jsonl")
		w, err := Open(path, Options{hold: hold, Buffer: len(entries)})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			w.Log(e)
		}
		close(hold)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return path, w
	}
	pPath, pw := write(2)
	sPath, sw := write(1)
	if pw.hashReq == nil || sw.hashReq != nil {
		t.Fatalf("helper: parallel writer %v, serial writer %v", pw.hashReq != nil, sw.hashReq != nil)
	}
	p, err := os.ReadFile(pPath)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.ReadFile(sPath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(p, s) {
		t.Fatalf("logs differ (%d and %d bytes)", len(p), len(s))
	}
	f, err := os.Open(pPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := Verify(f)
	if err != nil || n != len(entries) {
		t.Fatalf("Verify = %d, %v; want %d records", n, err, len(entries))
	}
}

func TestTimeFormatterMatchesRFC3339Nano(t *testing.T) {
	var tf timeFormatter
	base := time.Date(2026, 11, 30, 23, 59, 58, 0, time.UTC)
	times := []time.Time{
		time.Unix(0, 0), time.Unix(0, 1), base, base.Add(1), base.Add(100 * time.Millisecond),
		base.Add(time.Second + 120), base.Add(2*time.Second + 999999999), time.Date(9999, 12, 31, 23, 59, 59, 5, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(0, 1, 1, 0, 0, 0, 7, time.UTC),
		base.In(time.FixedZone("x", 5*3600+1800)).Add(3),
	}
	for i := range 2000 {
		times = append(times, base.Add(time.Duration(i)*time.Duration(7919)*time.Microsecond+time.Duration(i%3)*10))
	}
	for _, tm := range times {
		got := string(tf.append([]byte("x"), tm))
		want := "x" + tm.UTC().Format(time.RFC3339Nano)
		if got != want {
			t.Fatalf("%v: got %s, want %s", tm, got, want)
		}
	}
}

// TestFlushWritesWithoutClose: after Flush every record logged before it is
// in the file and the file verifies, while the writer stays open.
func TestFlushWritesWithoutClose(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.jsonl")
	w, err := Open(path, Options{FlushDelay: time.Hour, SyncInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range 100 {
		w.Log(entry(i))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := len(readLines(t, path)); n != 100 {
		t.Fatalf("%d records in the file after Flush, want 100", n)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := Verify(f); err != nil || n != 100 {
		t.Fatalf("Verify = %d, %v", n, err)
	}
}
