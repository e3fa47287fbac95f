package complexity

import "testing"

// A Rust char literal holding a double quote ('"', b'"', an escaped quote) and a raw
// string holding one (r#"say "hi""#) were read as the start of a string
// literal that ran to the next double quote: the decisions in between were
// blanked, and a string left open at the end of the literal blanked the
// rest of the file, a silent complexity of 1 for a function full of ifs.
// Char literals and raw strings are blanked as literals now; a lifetime
// ('a) is still code.
func TestApproximateRustQuotes(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{"fn f(c: char) -> bool { match c { '\"' => true, _ => false } } fn g() { if a { } if b { } }", 5},
		{"fn f(b: u8) { if b == b'\"' { } if x { } }", 3},
		{"fn f(c: char) { if c == '\\'' { } if x { } let s = \"if\"; }", 3},
		{"fn f() { let s = r#\"say \"hi\" if\"#; if a { } if b { } }", 3},
		{"fn f() { let s = r\"if\"; let t = br\"x\"; if a { } }", 2},
		{"fn f<'a>(x: &'a str) -> &'a str { if x.is_empty() { } while y { } x }", 3},
		{"fn f() { let c = '\\u{22}'; if a { } }", 2},
		{"fn f() { let s = r#\"a\"b\"#; if a { } if b { } }", 3},
	} {
		if got := Approximate([]byte(tc.src), "rust"); got != tc.want {
			t.Errorf("Approximate(%q) = %d, want %d", tc.src, got, tc.want)
		}
	}
}
