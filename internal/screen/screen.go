// Package screen screens text from untrusted sources (an external MCP
// server's results and tool descriptions) before it reaches a caller — in
// the seed's words, "response data from MCP servers is treated as
// untrusted input (the adversarial defense layer screens it)".
//
// It does two things, both deterministic:
//
//   - it removes what a reader cannot see but a model or a terminal acts
//     on: Unicode tag characters (U+E0000–U+E007F, "ASCII smuggling": text
//     hidden in them is reported), bidirectional overrides and isolates
//     (U+202A–U+202E, U+2066–U+2069, "Trojan Source"), invisible
//     characters (format characters, variation selectors, Hangul
//     fillers, the braille blank outside braille: see invisible), runs of
//     more than eight combining marks on one character ("Zalgo" text,
//     which covers the lines around it), terminal escape
//     sequences (ESC … and C1 controls) and other control characters
//     (except tab, newline and carriage return);
//   - it flags, without changing, text that reads like a prompt injection:
//     "ignore previous instructions" and its kin, chat-template role
//     markers (<|im_start|>, [INST], <<SYS>>, </tool_result> …).
//
// It is a filter of known tricks, not a classifier: text that reads as
// ordinary instructions passes. docs/mcp.md, "Screening", says what each
// policy does.
package screen

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Policy is what a screen does with its findings.
type Policy string

// Policies.
const (
	// Off leaves text as it is and reports nothing.
	Off Policy = "off"
	// Flag reports findings and leaves text as it is.
	Flag Policy = "flag"
	// Strip removes the invisible characters and escapes and reports
	// every finding (the default).
	Strip Policy = "strip"
	// Refuse refuses text with any finding.
	Refuse Policy = "refuse"
)

// ParsePolicy reads a policy name ("" is Strip).
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case "":
		return Strip, nil
	case Off, Flag, Strip, Refuse:
		return p, nil
	}
	return "", fmt.Errorf("screen %q: want off, flag, strip or refuse", s)
}

// Finding kinds.
const (
	HiddenTags     = "hidden-tag-characters" // U+E0000–U+E007F
	Bidi           = "bidi-controls"         // U+202A–U+202E, U+2066–U+2069
	Invisible      = "invisible-characters"  // U+200B, U+2060, U+FEFF, U+180E
	CombiningRun   = "combining-runs"        // marks past the 8th on one character
	TerminalEscape = "terminal-escapes"      // ESC sequences, C1 controls
	Control        = "control-characters"    // C0 (but \t \n \r), DEL
	Injection      = "injection-phrase"      // reads like a prompt injection
	TooDeep        = "nested-too-deep"       // not screened below this point
)

// Finding is one kind of trick found in a value.
type Finding struct {
	Kind  string `json:"kind"`
	Path  string `json:"path"`  // where, as a JSON pointer ("" the value itself)
	Count int    `json:"count"` // how many characters (sequences, phrases)
	// Sample is what the trick hides or says, cut to 80 bytes: the text
	// spelled in tag characters, or the phrase found.
	Sample string `json:"sample,omitempty"`
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s ×%d", f.Kind, f.Count)
	if f.Path != "" {
		s += " at " + f.Path
	}
	if f.Sample != "" {
		s += fmt.Sprintf(" (%q)", f.Sample)
	}
	return s
}

// Summary words findings for a log line or an error: at most five.
func Summary(fs []Finding) string {
	var parts []string
	for i, f := range fs {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(fs)-5))
			break
		}
		parts = append(parts, f.String())
	}
	return strings.Join(parts, "; ")
}

const maxSample = 80

// maxMarks is the most combining marks (Unicode Mn, Me) kept in a row on
// one character. Writing systems stack a few (Vietnamese two, Hebrew
// points and cantillation three or four, Tibetan stacks about five);
// "Zalgo" text stacks dozens, and they spill over the lines around it.
// Unicode's stream-safe format allows 30 non-starters; 8 leaves every
// script its stacks.
const maxMarks = 8

// injection lists the phrases flagged as prompt injections; any Unicode
// space or line separator counts as a space (\s alone is ASCII).
var injection = regexp.MustCompile(strings.ReplaceAll(`(?i)`+
	`\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|these\s+)?`+
	`(?:previous|prior|above|earlier|preceding|original|system)\s+(?:instructions?|prompts?|messages?|directions?|rules?)`+
	`|\b(?:reveal|print|repeat|show|output)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|hidden\s+instructions|initial\s+instructions)`+
	`|\bnew\s+system\s+(?:instructions?|prompt)\s*:`+
	`|<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>`+
	`|\[/?INST\]|<</?SYS>>`+
	`|</?(?:system|assistant|tool_result|function_results|instructions)>`+
	`|(?:^|[\n\x{2028}\x{2029}])\s*(?:Human|Assistant|SYSTEM)\s*:\s`, `\s`, `[\s\p{Zs}\x{2028}\x{2029}\x{85}]`))

// Text screens one string under policy p (Off returns s unchanged). The
// findings' Path is path.
func Text(s, path string, p Policy) (string, []Finding) {
	if p == Off {
		return s, nil
	}
	var fs []Finding
	out := s
	if needsScan(s) {
		var b strings.Builder
		counts := map[string]int{}
		var hidden []byte
		marks := 0          // combining marks kept in a row on one character
		var prev rune       // the character before i in s
		blankEnd := 0       // end of the run of braille blanks being passed
		keepBlanks := false // whether that run is braille text's spaces
		braille := -1       // whether s has a braille pattern (-1: not looked yet)
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			kind := ""
			skip := n
			repl := "" // what a removed character is replaced with
			switch {
			case r >= 0xE0000 && r <= 0xE007F:
				kind = HiddenTags
				if c := r - 0xE0000; c >= 0x20 && c < 0x7F && len(hidden) < maxSample {
					hidden = append(hidden, byte(c))
				}
			case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
				kind = Bidi
			case r == 0x115F || r == 0x1160 || r == 0x3164 || r == 0xFFA0:
				// Hangul fillers look like a space.
				kind, repl = Invisible, " "
			case invisible(r):
				kind = Invisible
			case r == 0x2800:
				// The braille blank is a space in braille text (a run of
				// them next to a braille pattern); elsewhere an empty
				// glyph that passes for nothing, read as the space it
				// looks like, so words it separates stay words.
				if i >= blankEnd {
					j := i
					for strings.HasPrefix(s[j:], "\u2800") {
						j += len("\u2800")
					}
					next, _ := utf8.DecodeRuneInString(s[j:])
					blankEnd, keepBlanks = j, isBraille(prev) || isBraille(next)
					// A whole line of blanks in braille text is an empty
					// row of a braille plot: no words on it to join.
					if !keepBlanks && (i == 0 || prev == '\n') && (j == len(s) || next == '\n' || next == '\r') {
						if braille < 0 {
							braille = boolInt(strings.IndexFunc(s, isBraille) >= 0)
						}
						keepBlanks = braille == 1
					}
				}
				if !keepBlanks {
					kind, repl = Invisible, " "
				}
			case isMark(r):
				if marks++; marks > maxMarks {
					kind = CombiningRun
				}
			case r == 0x1B:
				kind = TerminalEscape
				skip = escapeLen(s[i:])
			case r >= 0x80 && r <= 0x9F:
				kind = TerminalEscape
			case r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0x7F:
				kind = Control
			}
			if kind == "" {
				// A joiner or a presentation selector is kept inside the
				// character's cluster: the marks after it still stack.
				if marks > 0 && !isMark(r) && r != 0x200C && r != 0x200D && r != 0xFE0E && r != 0xFE0F {
					marks = 0
				}
				if r == utf8.RuneError && n == 1 {
					// An invalid byte becomes U+FFFD: kept, it could join
					// with bytes around a removed character into one.
					b.WriteRune(utf8.RuneError)
				} else {
					b.WriteString(s[i : i+n])
				}
			} else {
				counts[kind]++
				b.WriteString(repl)
			}
			prev = r
			i += skip
		}
		for _, k := range []string{HiddenTags, Bidi, Invisible, CombiningRun, TerminalEscape, Control} {
			if c := counts[k]; c > 0 {
				f := Finding{Kind: k, Path: path, Count: c}
				if k == HiddenTags {
					f.Sample = string(hidden)
				}
				fs = append(fs, f)
			}
		}
		if len(fs) > 0 {
			out = b.String()
		}
	}
	// Phrases are looked for in the cleaned text: an injection split by
	// invisible characters is found too.
	if m := injection.FindAllStringIndex(out, 100); len(m) > 0 {
		fs = append(fs, Finding{Kind: Injection, Path: path, Count: len(m), Sample: cut(strings.TrimSpace(out[m[0][0]:m[0][1]]))})
	}
	if len(fs) > 0 {
		// The hidden text itself may carry the injection.
		for _, f := range fs {
			if f.Kind == HiddenTags && f.Sample != "" && injection.MatchString(f.Sample) &&
				!slices.ContainsFunc(fs, func(g Finding) bool { return g.Kind == Injection }) {
				fs = append(fs, Finding{Kind: Injection, Path: path, Count: 1, Sample: cut(f.Sample)})
				break
			}
		}
	}
	if p == Flag || p == Refuse {
		return s, fs
	}
	return out, fs
}

// invisible reports the characters stripped as invisible: format
// characters (Unicode category Cf: zero-width space, word joiner,
// invisible operators, soft hyphen, BOM, interlinear annotation, bidi
// marks…) but the zero-width joiner and non-joiner (emoji sequences and
// Persian need them) and the tag and bidi characters found above;
// variation selectors but the emoji/text presentation ones (U+FE0E,
// U+FE0F): the supplementary ones (U+E0100–U+E01EF) carry a byte each,
// a known way to hide text; the combining grapheme joiner; Hangul fillers
// (they render as blank); the Mongolian vowel separator.
func invisible(r rune) bool {
	switch {
	case r == 0x200C, r == 0x200D:
		return false
	case r >= 0xFE00 && r <= 0xFE0D, r >= 0xE0100 && r <= 0xE01EF:
		return true
	case r == 0x034F, r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0, r == 0x180E:
		return true
	}
	// Default_Ignorable_Code_Point: format characters, variation
	// selectors (the Mongolian ones too) and the code points reserved as
	// ignorable, assigned or not (U+E0080–U+E0FFF can carry a byte each).
	return r > 0x7F && (unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r) && r != 0xFE0E && r != 0xFE0F)
}

// needsScan reports whether s holds a byte that may start a character
// screened out: any control byte, DEL, or a multi-byte sequence (the
// characters above are all outside ASCII).
func needsScan(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c >= 0x7F {
			return true
		}
	}
	return false
}

// escapeLen is the length of the escape sequence at the start of s (which
// begins with ESC): CSI (ESC [ params final), OSC/DCS/APC/PM/SOS (up to
// BEL or ESC \, at most 4 KiB), else ESC and one character.
func escapeLen(s string) int {
	if len(s) < 2 {
		return 1
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s) && i < 256; i++ {
			if c := s[i]; c >= 0x40 && c <= 0x7E {
				return i + 1
			} else if c < 0x20 || c > 0x7E {
				return i // not a CSI byte: the sequence ends unfinished
			}
		}
		return min(len(s), 256)
	case ']', 'P', '_', '^', 'X':
		for i := 2; i < len(s) && i < 4096; i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == 0x1B && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return min(len(s), 4096)
	}
	_, n := utf8.DecodeRuneInString(s[1:])
	return 1 + n
}

// isMark reports a combining mark (Unicode Mn or Me; none is below U+0300).
func isMark(r rune) bool {
	return r >= 0x300 && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r))
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isBraille reports a braille pattern with at least one dot.
func isBraille(r rune) bool { return r > 0x2800 && r <= 0x28FF }

func cut(s string) string {
	if len(s) <= maxSample {
		return s
	}
	s = s[:maxSample]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "…"
}

// Value screens every string of a generic value (maps, slices, strings;
// see abi.Normalize) under p: map keys are screened for findings but kept
// (a changed key would change the value's shape). Under Strip it returns
// a copy where strings changed; maps and slices without a change are
// returned as they are.
func Value(v any, p Policy) (any, []Finding) {
	if p == Off {
		return v, nil
	}
	var fs []Finding
	out, _ := walk(v, "", "", p, nil, &fs, 0)
	return out, fs
}

// Schema screens a JSON Schema under p: like Value, but under Strip it
// rewrites only the prose a model reads (the strings of "description" and
// "title" members); every other string (an enum value, a pattern, a
// property name) is reported and kept, since changing it would change
// what the schema accepts.
func Schema(v any, p Policy) (any, []Finding) {
	if p == Off {
		return v, nil
	}
	var fs []Finding
	out, _ := walk(v, "", "", p, func(key string) bool { return key == "description" || key == "title" }, &fs, 0)
	return out, fs
}

// maxDepth bounds the walk, above the pipeline's own nesting limit (512):
// a deeper value is reported as a finding (TooDeep), which refuse refuses.
const maxDepth = 1024

// walk screens v, found under member key of its parent ("" for an array
// item or the top). With rewrite set, only strings under keys it accepts
// are rewritten under Strip; the others are flagged.
func walk(v any, path, key string, p Policy, rewrite func(string) bool, fs *[]Finding, depth int) (any, bool) {
	if depth > maxDepth {
		*fs = append(*fs, Finding{Kind: TooDeep, Path: path, Count: 1})
		return v, false
	}
	switch x := v.(type) {
	case string:
		pp := p
		if p == Strip && rewrite != nil && !rewrite(key) {
			pp = Flag
		}
		s, f := Text(x, path, pp)
		*fs = append(*fs, f...)
		return s, s != x
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			kp := path + "/" + pointerEscape(k)
			if _, f := Text(k, kp, Flag); len(f) > 0 {
				*fs = append(*fs, f...)
			}
			ne, ch := walk(e, kp, k, p, rewrite, fs, depth+1)
			if ch {
				if out == nil {
					out = maps.Clone(x)
				}
				out[k] = ne
			}
		}
		if out == nil {
			return x, false
		}
		return out, true
	case []any:
		var out []any
		for i, e := range x {
			ne, ch := walk(e, path+"/"+strconv.Itoa(i), "", p, rewrite, fs, depth+1)
			if ch {
				if out == nil {
					out = slices.Clone(x)
				}
				out[i] = ne
			}
		}
		if out == nil {
			return x, false
		}
		return out, true
	}
	return v, false
}

func pointerEscape(k string) string {
	if !strings.ContainsAny(k, "~/") {
		return k
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}
