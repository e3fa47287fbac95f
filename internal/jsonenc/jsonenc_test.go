package jsonenc

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppendString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", `""`},
		{"plain", "abc", `"abc"`},
		{"quote and backslash", `a"b\c`, `"a\"b\\c"`},
		{"named escapes", "\n\r\t", `"\n\r\t"`},
		{"other controls", "\x00\x1f\b\f", `"\u0000\u001f\u0008\u000c"`},
		{"DEL and non-ASCII kept", "\x7fé世🌍\u2028<>&", "\"\x7fé世🌍\u2028<>&\""},
		{"invalid UTF-8 byte by byte", "a\xff\xfeb", "\"a\ufffd\ufffdb\""},
		{"truncated rune", "x\xe4\xb8", "\"x\ufffd\ufffd\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(AppendString([]byte("pre:"), tt.in)); got != "pre:"+tt.want {
				t.Errorf("AppendString(%q) = %q, want %q", tt.in, got, "pre:"+tt.want)
			}
		})
	}
}

// FuzzAppendString: the hand-written string encoder agrees with
// encoding/json on every input, and a string read back and appended again
// gives the same bytes (the audit log's canonical-form property).
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\", "\x00\x1f\x7f", "\xff\xfe", "é世🌍", "\u2028<>&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := AppendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q encoded as invalid JSON %q: %v", s, b, err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); got != want {
			// encoding/json maps each invalid byte to U+FFFD; so do we.
			ref, _ := json.Marshal(s)
			var refGot string
			_ = json.Unmarshal(ref, &refGot)
			if got != refGot {
				t.Fatalf("%q round-tripped as %q, encoding/json gives %q", s, got, refGot)
			}
		}
		if again := AppendString(nil, got); string(again) != string(b) {
			t.Fatalf("%q: re-encoding the decoded string gives %q, first encoding %q", s, again, b)
		}
	})
}

func TestAppendStringAllocatesNothing(t *testing.T) {
	buf := make([]byte, 0, 256)
	s := "héllo \"world\"\n\x01\xff"
	if n := testing.AllocsPerRun(100, func() { buf = AppendString(buf[:0], s) }); n != 0 {
		t.Errorf("AppendString allocated %v times into a large enough buffer", n)
	}
}

func BenchmarkAppendString(b *testing.B) {
	s := strings.Repeat("héllo, world \"quoted\"\n", 8)
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		buf = AppendString(buf[:0], s)
	}
}

// BenchmarkAppendStringASCII is the audit record's case: short plain
// identifiers (a provider id, a tool name, a call id).
func BenchmarkAppendStringASCII(b *testing.B) {
	ss := []string{"org.aios.conformance", "c-echo", "0000018f3a2b-00000042", "wasm", "1.0.0", "bench"}
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for _, s := range ss {
			buf = AppendString(buf, s)
		}
	}
}

// TestAppendStringEveryPosition puts each kind of byte that needs a look at
// every position of a plain string, so the eight-byte fast path is seen to
// stop at it wherever it lies in a word.
func TestAppendStringEveryPosition(t *testing.T) {
	plain := "abcdefghijklmnopqrstuvw" // 23 bytes: two words and a tail
	for _, odd := range []string{"\"", "\\", "\n", "\x00", "\x1f", "\x7f", " ", "é", "\xff", "🌍", "\xe4\xb8"} {
		for i := 0; i <= len(plain); i++ {
			s := plain[:i] + odd + plain[i:]
			var enc strings.Builder // encoding/json, without its HTML escapes, with U+FFFD written raw
			e := json.NewEncoder(&enc)
			e.SetEscapeHTML(false)
			_ = e.Encode(s)
			want := strings.ReplaceAll(strings.TrimSuffix(enc.String(), "\n"), `\ufffd`, "\uFFFD")
			if got := AppendString(nil, s); string(got) != string(want) {
				t.Errorf("AppendString(%q) = %q, want %q", s, got, want)
			}
		}
	}
}
