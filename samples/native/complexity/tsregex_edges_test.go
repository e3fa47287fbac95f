package complexity

import "testing"

// A TypeScript regular expression literal holding a quote (s.replace(/"/g,
// ""), /[/"]/) was read as code and its quote as the start of a string
// running to the next quote of the file: the decisions in between were
// blanked and the complexity came out silently low. A regular expression
// literal (where an expression may start: after ( , = : [ ! & | ? { } ;
// or return) is now blanked as a literal; a division stays code.
func TestApproximateTypeScriptRegex(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{`const t = s.replace(/"/g, ''); if (a) {} if (b) {} const u = "x";`, 3},
		{`const ok = /[/"]/.test(s) && b; if (c) {} let q = "z";`, 3},
		{`function f() { return /'/.test(s) } if (a) {} if (b) {} const k = 'y';`, 3},
		{`const x = a / b; const y = "if"; if (c) {} const z = (a) / 2 / 3; if (d) {}`, 3},
		{`const r = /a\/"b/; if (a) {} const w = "q";`, 2},
	} {
		if got := Approximate([]byte(tc.src), "typescript"); got != tc.want {
			t.Errorf("Approximate(%s) = %d, want %d", tc.src, got, tc.want)
		}
	}
}
