package screen

import (
	"strings"
	"testing"
)

// TestBrailleCanvasBlankRow: a braille canvas (drawille, terminal
// plots and sparklines, braille art) draws each empty cell as U+2800, so
// a row with no dots is a line of braille blanks with a newline on each
// side. The blank is "kept only beside braille" now, so that row is
// counted as invisible characters: under Refuse the whole plot is
// refused, under Flag/Strip a finding is reported and the row is
// rewritten, though the text is unmistakably braille (the file-wide check
// this replaced kept it).
func TestBrailleCanvasBlankRow(t *testing.T) {
	row := strings.Repeat("\u2800", 20)
	plot := "\u28C0\u28E4\u28F6\u28FF" + strings.Repeat("\u2800", 16) + "\n" +
		row + "\n" +
		row + "\n" +
		strings.Repeat("\u2800", 16) + "\u283F\u281B\u2809\u2801\n"
	for _, p := range []Policy{Refuse, Strip} {
		out, fs := Text(plot, "/content/0/text", p)
		if len(fs) > 0 || out != plot {
			t.Errorf("%s: a braille plot with empty rows: findings %v, changed %v; want it untouched", p, fs, out != plot)
		}
	}
}
