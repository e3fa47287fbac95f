package schema

import (
	"strings"
	"testing"
	"time"
)

// TestPatternsNotECMARefused: regexp2, .NET's engine, read .NET syntax
// in ECMAScript mode and gave it .NET's meaning, where ECMA-262 (with the u
// flag, as JSON Schema's patterns are) refuses it or reads something else:
// "(?i)abc" matched "ABC", "a\z" took \z as an anchor, "[a-z-[aeiou]]"
// subtracted the vowels, "(a)\2" was an octal escape, and so on, so a
// schema that ajv or any ECMA validator refuses was accepted here and
// checked values by another rule. Each is refused at load, naming the
// tool, the keyword and the construct.
func TestPatternsNotECMARefused(t *testing.T) {
	for _, c := range []struct{ pattern, names string }{
		{`(?i)^abc$`, `(?i)`},
		{`(?P<x>a)`, `(?P<`},
		{`(?#note)a`, `(?#`},
		{`(?>a+)b`, `(?>a`},
		{`(?s)a.b`, `(?s)`},
		{`(?'n'a)`, `(?'n`},
		{`^a\z`, `\z`},
		{`\Aabc`, `\A`},
		{`^ab\Z`, `\Z`},
		{`^\e$`, `\e`},
		{`^\Q.\E$`, `\Q`},
		{`^[a-z-[aeiou]]$`, `-[a`},
		{`^[[:alpha:]]+$`, `[[:`},
		{`^*a`, `"*"`},
		{`^(?=a)*a`, `"*"`},
		{`^(a)\2$`, `\2`},
		{`^\07$`, `\07`},
		{`^\x{41}$`, `\x{4`},
		{`^\pL$`, `\pL`},
	} {
		doc := map[string]any{"type": "object", "properties": map[string]any{"code": map[string]any{"type": "string", "pattern": c.pattern}}}
		_, err := Compile("t@1.0.0 parameters", doc)
		if err == nil {
			t.Errorf("pattern %q compiled", c.pattern)
			continue
		}
		for _, want := range []string{"t@1.0.0 parameters", "/properties/code/pattern", c.names} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("pattern %q: error %q does not contain %q", c.pattern, err, want)
			}
		}
		if strings.Contains(err.Error(), "error parsing regexp") {
			t.Errorf("pattern %q: error %q is regexp2's, naming no ECMA-262 rule", c.pattern, err)
		}
	}
	// A patternProperties key too.
	_, err := Compile("t@1.0.0 parameters", map[string]any{"type": "object", "patternProperties": map[string]any{`(?i)^x-`: map[string]any{}}})
	if err == nil || !strings.Contains(err.Error(), "(?i)") {
		t.Errorf("patternProperties key (?i)^x-: %v", err)
	}
}

// TestPatternsReadAsECMA: ECMA-262 patterns compile and match as ECMA-262
// reads them: '.' matches no line terminator (regexp2 matched U+2028 and
// U+2029), \b and \B take only ASCII word characters (regexp2 took é for
// one, so "a\b" did not match "aé"), and valid ECMA-262 the check must not
// refuse still compiles.
func TestPatternsReadAsECMA(t *testing.T) {
	for _, c := range []struct {
		pattern string
		value   string
		match   bool
	}{
		{`^.$`, "\u2028", false},
		{`^.$`, "\u2029", false},
		{`^.$`, "\r", false},
		{`^.$`, "\n", false},
		{`^.$`, "😀", true},
		{`^a.c$`, "abc", true},
		{`^[.]$`, ".", true},
		{`^[.]$`, "a", false},
		{`a\b`, "aé", true},
		{`é\b`, "é", false},
		{`\bé`, "é", false},
		{`^a\B`, "aé", false},
		{`^é\B`, "é", true},
		{`\bcat\b`, "a cat.", true},
		{`\bcat\b`, "cats", false},
		{`^[\b]$`, "\b", true},
		{`^(?<n>a)\k<n>$`, "aa", true},
		{`(?<=a)b`, "ab", true},
		{`(?<!a)b`, "ab", false},
		{`^(?!admin$)[a-z]+$`, "admin", false},
		{`^[^]$`, "\n", true},
		{`^[]$`, "a", false},
		{`^a\-b$`, "a-b", true},
		{`^a{,3}$`, "a{,3}", true},
		{`^[a[]$`, "[", true},
		{`^[\[:alpha:]]$`, "a]", true},
		{`^\u{1F600}$`, "😀", true},
		{`^\cJ$`, "\n", true},
		{`^\0$`, "\x00", true},
		{`^(a)(b)\2\1$`, "abba", true},
		{`^(?:a|b)+?c$`, "abc", true},
		{`^\x41\u0042$`, "AB", true},
		{`^\p{Lu}\P{Lu}$`, "Ab", true},
	} {
		v, err := Compile("t@1.0.0 parameters", map[string]any{"anyOf": []any{map[string]any{"type": "string", "pattern": c.pattern}}})
		if err != nil {
			t.Errorf("pattern %q: %v", c.pattern, err)
			continue
		}
		if got := v.Validate(c.value) == nil; got != c.match {
			t.Errorf("pattern %q against %q: matched %v, ECMA-262 %v", c.pattern, c.value, got, c.match)
		}
	}
}

// TestHugeQuantifierNamed: a quantifier counting beyond what regexp2 holds
// (2^31-1) was refused "capture group number out of range", naming no
// quantifier; the refusal names the quantifier and the bound.
func TestHugeQuantifierNamed(t *testing.T) {
	for _, p := range []string{`^a{2147483648}$`, `^a{1,4294967296}$`, `^(?:ab){99999999999999999999,}`} {
		_, err := Compile("t@1.0.0 parameters", map[string]any{"type": "string", "pattern": p})
		if err == nil {
			t.Errorf("pattern %q compiled", p)
			continue
		}
		for _, want := range []string{"/pattern", "quantifier {", "2147483647"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("pattern %q: error %q does not contain %q", p, err, want)
			}
		}
	}
	if _, err := Compile("t@1.0.0 parameters", map[string]any{"type": "string", "pattern": `^a{2147483647}$`}); err != nil {
		t.Errorf("a{2147483647}: %v", err)
	}
}

// TestPatternBombRefused: a pattern of 100 000 nested look-aheads (300 KB)
// held its schema's registration for over six minutes in regexp2's
// compiler, whose time grows with the square of the nesting and of the
// capturing groups; such a pattern is refused at once, saying which bound
// it passes.
func TestPatternBombRefused(t *testing.T) {
	for _, c := range []struct{ pattern, says string }{
		{strings.Repeat("(?=", 100000) + "a" + strings.Repeat(")", 100000), "more than 65536"},
		{strings.Repeat("(?=", 10000) + "a" + strings.Repeat(")", 10000), "nests groups more than 128 deep"},
		{strings.Repeat("(", 129) + "a" + strings.Repeat(")", 129), "nests groups more than 128 deep"},
		{strings.Repeat("(a)", 1001), "1001 capturing groups, more than 1000"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := Compile("t@1.0.0 parameters", map[string]any{"type": "string", "pattern": c.pattern})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "/pattern") {
				t.Errorf("pattern of %d bytes: %.300v, want a refusal at /pattern saying %q", len(c.pattern), err, c.says)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("pattern of %d bytes: Compile still running after 30 s", len(c.pattern))
		}
	}
	// At the bounds, a pattern compiles.
	for _, p := range []string{strings.Repeat("(?=", 128) + "a" + strings.Repeat(")", 128), strings.Repeat("(a)", 1000), strings.Repeat("(?:ab|", 100) + strings.Repeat(")", 100)} {
		if _, err := Compile("t", map[string]any{"type": "string", "pattern": p}); err != nil {
			t.Errorf("pattern of %d bytes: %.300v", len(p), err)
		}
	}
}

// TestSchemaPatternsBoundedTogether: each pattern is bounded, but a schema
// of many patterns near the bound took regexp2 about 50 ms each to compile
// (70 of them 4 s; a thousand fit in one frame); the patterns of a schema
// are bounded together, 4 MiB, and a schema passing it is refused, saying so.
func TestSchemaPatternsBoundedTogether(t *testing.T) {
	alt := strings.Repeat("abcdefg|", 8000) + "z" // 64 001 bytes
	props := map[string]any{}
	for i := 0; i < 70; i++ {
		props[strings.Repeat("p", i+1)] = map[string]any{"type": "string", "pattern": alt}
	}
	start := time.Now()
	_, err := Compile("t@1.0.0 parameters", map[string]any{"type": "object", "properties": props})
	if err == nil || !strings.Contains(err.Error(), "patterns") || !strings.Contains(err.Error(), "4194304 bytes in all") {
		t.Fatalf("70 patterns of 64 KB: %.300v, want a refusal of the patterns' total", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("refused after %v", d)
	}
	// Under the bound, such a schema compiles.
	for k := range props {
		if len(k) > 10 {
			delete(props, k)
		}
	}
	if _, err := Compile("t@1.0.0 parameters", map[string]any{"type": "object", "properties": props}); err != nil {
		t.Errorf("10 patterns of 64 KB: %.300v", err)
	}
}
