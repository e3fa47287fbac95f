package wire

import "testing"

func TestLoneSurrogate(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{
		{`{"a":"b"}`, -1},
		{`{"a":"\ud83d\ude00"}`, -1},
		{`{"a":"\uD83D\uDE00\u00e9"}`, -1},
		{`{"a":"\\ud800"}`, -1}, // an escaped backslash, then text
		{`{"a":"\\\ud800"}`, 8},
		{`{"\ud800":1}`, 2},
		{`{"a":"x\udc00"}`, 7},
		{`{"a":"\ud800\u0041"}`, 6},
		{`{"a":"\ud800"}`, 6},
		{`["\ud83d"]`, 2},
		{`["\ud83d\ud83d\ude00"]`, 2},
		{`["\ud83d\ude00\ude00"]`, 14},
	} {
		if got := LoneSurrogate([]byte(c.in)); got != c.want {
			t.Errorf("%s: %d, want %d", c.in, got, c.want)
		}
	}
}
