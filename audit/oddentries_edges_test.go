package audit

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// verifyFile verifies the log at path and returns its record count.
func verifyFile(t *testing.T, path string) (int, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return Verify(f)
}

// TestRecordTimeOutsideRFC3339: an Entry whose time was outside years
// 0000 to 9999 (a clock gone wrong, an embedder's Entry) was written as
// "10000-01-01T00:00:00Z" or "-0005-…": a record the writer made that
// verify refused as edited ("is not RFC 3339: the record was edited"),
// and Open refused to continue a log it ended ("its last record is
// damaged"), so the host could not start again. Such a time is written
// as the nearest one RFC 3339 has; the log verifies and continues.
func TestRecordTimeOutsideRFC3339(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	times := []time.Time{
		time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Unix(1<<40, 5),
	}
	want := []string{
		"0000-01-01T00:00:00Z",
		"0000-01-01T00:00:00Z",
		"9999-12-31T23:59:59.999999999Z",
		"9999-12-31T23:59:59.999999999Z",
		"9999-12-31T23:59:59.999999999Z",
	}
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, tm := range times {
		w.Log(Entry{CallID: "c" + string(rune('0'+i)), Tool: "t", Time: tm})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := verifyFile(t, path); err != nil || n != len(times) {
		t.Fatalf("Verify: %d records, %v; want %d, nil", n, err, len(times))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !strings.Contains(line, `"time":"`+want[i]+`"`) {
			t.Errorf("record %d (time %v): %s; want time %s", i+1, times[i], line, want[i])
		}
	}
	// The log ends with such a record: the host starts again and goes on.
	w, err = Open(path, Options{RepairTail: true})
	if err != nil {
		t.Fatalf("Open after a record of year 10000: %v", err)
	}
	w.Log(Entry{CallID: "next", Tool: "t"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if n, err := verifyFile(t, path); err != nil || n != len(times)+1 {
		t.Fatalf("Verify after reopening: %d records, %v; want %d, nil", n, err, len(times)+1)
	}
}

// TestOddValuesKeepLogVerifiable (no defect): params and results the
// canonical encoding refuses (NaN, an infinity, nesting past 512 levels, a
// channel) are recorded with params_hash and result_hash "", and the
// others (the largest uint64, a number past uint64, invalid UTF-8, which
// hashes as U+FFFD) with their canonical hash; every string field holding
// control characters, invalid UTF-8 or more than 1 KiB stays verifiable,
// and the log continues after such a record.
func TestOddValuesKeepLogVerifiable(t *testing.T) {
	deep := any("x")
	for range 600 {
		deep = []any{deep}
	}
	odd := strings.Repeat("\x00\x1b\xff\u202e\"\\é", 700)
	values := []struct {
		v        any
		hashable bool
	}{
		{map[string]any{"n": math.NaN()}, false},
		{map[string]any{"n": math.Inf(-1)}, false},
		{deep, false},
		{map[string]any{"c": make(chan int)}, false},
		{map[string]any{"n": uint64(math.MaxUint64)}, true},
		{map[string]any{"n": json.Number("123456789012345678901234567890")}, true},
		{map[string]any{"bad\xff": "utf8\xc3"}, true},
	}
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range values {
		w.Log(Entry{CallID: "c" + strconv.Itoa(i), Caller: odd, Provider: odd, Tool: odd, Version: odd, Runtime: odd,
			ParentID: odd, Principal: odd, Session: odd, Error: odd, Params: v.v, Result: v.v})
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	i := 0
	_, _, err = VerifyWith(f, VerifyOptions{Each: func(r *Record, _ []byte) error {
		want := ""
		if values[i].hashable {
			want, _ = ValueHash(values[i].v)
		}
		if r.ParamsHash != want || r.ResultHash != want {
			t.Errorf("record %d: params_hash %q, result_hash %q; want %q", i+1, r.ParamsHash, r.ResultHash, want)
		}
		i++
		return nil
	}})
	if err != nil || i != len(values) {
		t.Fatalf("Verify: %d records, %v; want %d", i, err, len(values))
	}
	if a, _ := ValueHash(map[string]any{"bad\ufffd": "utf8\ufffd"}); a != mustHash(t, values[6].v) {
		t.Errorf("invalid UTF-8 does not hash as U+FFFD")
	}
	w, err = Open(path, Options{})
	if err != nil {
		t.Fatalf("Open after odd records: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func mustHash(t *testing.T, v any) string {
	t.Helper()
	h, err := ValueHash(v)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
