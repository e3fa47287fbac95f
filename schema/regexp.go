package schema

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/dlclark/regexp2/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// patternTimeout bounds the ECMA pattern matching of one validation: all
// its matches together (every string of an array, every key against every
// patternProperties pattern), so a catastrophic backtracking pattern cannot
// stall a call, however many strings the value holds (each match used to
// have 100 ms of its own). A value whose matching runs out of time is
// refused. The time is wall-clock time, so it is generous: a busy machine
// must not refuse ordinary values; regexp2's timeout clock ticks every
// 100 ms, so a validation can overrun by about that much.
const patternTimeout = time.Second

// matchBudget is the time left for the pattern matches of one validation.
// It belongs to one pooled compilation of the schema (refInst), used by one
// validation at a time.
type matchBudget struct {
	left time.Duration
}

// patternTimedOut is the panic that ends a validation whose patterns ran
// out of time; validateRef recovers it.
type patternTimedOut struct {
	pattern, s string
}

// ecmaPattern adapts regexp2 (ECMAScript mode) to the reference's Regexp.
type ecmaPattern struct {
	re  *regexp2.Regexp
	src string // the pattern as the schema has it
	b   *matchBudget
}

func (p ecmaPattern) String() string { return p.src }

func (p ecmaPattern) MatchString(s string) bool {
	if p.b.left <= 0 {
		panic(patternTimedOut{p.src, s})
	}
	p.re.MatchTimeout = p.b.left
	start := time.Now()
	ok, err := p.re.MatchString(s)
	p.b.left -= time.Since(start)
	if err != nil {
		// Timed out: not a verdict. Refusing the value is the only safe
		// answer (under "not", no match would accept it).
		panic(patternTimedOut{p.src, s})
	}
	return ok
}

// engineState records whether a compilation asked for a pattern. The
// engine is also called at validation time (format "regex" compiles the
// value's string), concurrently: it writes used only while compiling is
// set, which compileRef clears before the schema is shared.
type engineState struct {
	compiling bool
	used      bool
	// bytes is the length of the patterns compiled so far (while
	// compiling), bounded by maxSchemaPatternBytes.
	bytes int
}

// maxSchemaPatternBytes bounds the patterns of one schema together: each
// is bounded (maxPatternLen), but regexp2 took about 50 ms for a 64 KiB
// one (70 of them 4 s), so a thousand, within one 64 MiB frame, would hold
// the schema's registration for about a minute.
const maxSchemaPatternBytes = 4 << 20

// ecmaEngine returns the reference's regexp engine for one compilation:
// JSON Schema patterns are ECMA-262 regular expressions, which Go's regexp
// does not fully implement (look-around, back references). They are built
// with the "u" flag, as JSON Schema 2020-12 (core §6.4) asks: \p{L} is a
// Unicode property and \u{1F600} a code point, not the literals "p{L}" and
// "u…u". Every pattern shares b.
func ecmaEngine(b *matchBudget, st *engineState) jsonschema.RegexpEngine {
	return func(s string) (jsonschema.Regexp, error) {
		if st.compiling {
			st.used = true
			st.bytes += len(s)
			if st.bytes > maxSchemaPatternBytes {
				return nil, fmt.Errorf("the schema's patterns (patternProperties keys included) are more than %d bytes in all; describe the values otherwise, or split the tool", maxSchemaPatternBytes)
			}
		}
		src, err := ecmaSyntax(s)
		if err != nil {
			return nil, err
		}
		src, err = propertyEscapes(src)
		if err != nil {
			return nil, err
		}
		re, err := regexp2.Compile(src, regexp2.ECMAScript|regexp2.Unicode)
		if err != nil {
			return nil, err
		}
		re.MatchTimeout = patternTimeout
		return ecmaPattern{re, s, b}, nil
	}
}

// propertyEscapes rewrites the ECMA-262 property escapes regexp2 does not
// read: \p{Script=Greek} and \p{sc=Greek} (and \P) become \p{Greek},
// \p{General_Category=Letter} and \p{gc=Letter} \p{Letter}, which it
// reads. Script_Extensions (scx) is refused, saying so: Go has no tables
// for it, and Script instead would refuse characters it allows. A
// surrogate pair of escapes, \uD83D\uDE00, becomes the code point it
// encodes, \u{1F600}, as the u flag reads it (regexp2 read two lone
// surrogates, which no string holds).
func propertyEscapes(p string) (string, error) {
	if !strings.Contains(p, "=") && !strings.Contains(p, `\u`) && !strings.Contains(p, `\p{`) && !strings.Contains(p, `\P{`) {
		return p, nil
	}
	var sb strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		if p[i] != '\\' || i+1 >= len(p) {
			// ECMA-262 classes do not nest: '[' in one is a literal,
			// and the first ']' (even right after "[" or "[^") ends it.
			switch {
			case !inClass && p[i] == '[':
				inClass = true
				if i+1 < len(p) && p[i+1] == '^' {
					sb.WriteByte('[')
					i++
				}
			case inClass && p[i] == ']':
				inClass = false
			}
			sb.WriteByte(p[i])
			continue
		}
		c := p[i+1]
		if c == 'u' {
			if r, ok := surrogatePair(p[i:]); ok {
				fmt.Fprintf(&sb, "\\u{%X}", r)
				i += 11
				continue
			}
		}
		if (c == 'p' || c == 'P') && i+2 < len(p) && p[i+2] == '{' {
			if j := strings.IndexByte(p[i+3:], '}'); j >= 0 {
				body := p[i+3 : i+3+j]
				if long, ok := propertyAliases[body]; ok {
					sb.WriteString("\\" + string(c) + "{" + long + "}")
					i += 3 + j
					continue
				}
				if union, ok := binaryProperties[body]; ok {
					switch {
					case c == 'p' && inClass:
						sb.WriteString(union)
					case c == 'p':
						sb.WriteString("[" + union + "]")
					case !inClass:
						sb.WriteString("[^" + union + "]")
					case body == "ASCII":
						sb.WriteString(`\u0080-\u{10FFFF}`)
					default:
						return "", fmt.Errorf("\\P{%s} inside a character class is not supported (it is read as a union of categories, which a class cannot negate in part); write it outside the class, (?:\\P{%s}|[…])", body, body)
					}
					i += 3 + j
					continue
				}
				if name, value, ok := strings.Cut(body, "="); ok {
					switch name {
					case "Script", "sc", "General_Category", "gc":
						if long, ok := scriptAliases[value]; ok && (name == "Script" || name == "sc") {
							value = long
						}
						sb.WriteString("\\" + string(c) + "{" + value + "}")
						i += 3 + j
						continue
					case "Script_Extensions", "scx":
						return "", fmt.Errorf("\\%c{%s}: Script_Extensions is not supported (no tables for it); \\%c{Script=%s} matches the characters of that script alone", c, body, c, value)
					}
				}
			}
		}
		sb.WriteString(p[i : i+2])
		i++
	}
	return sb.String(), nil
}

// binaryProperties are the binary Unicode properties of ECMA-262's u flag
// that neither Go's unicode tables nor regexp2 have, each as the union of
// categories and properties Unicode derives it from (DerivedCoreProperties:
// ID_Start and ID_Continue also leave out Pattern_Syntax and
// Pattern_White_Space, which the union does not meet), written as a
// character class's contents.
var binaryProperties = func() map[string]string {
	m := map[string]string{
		"ASCII":       `\u0000-\u007F`,
		"Any":         `\u0000-\u{10FFFF}`,
		"Alphabetic":  `\p{L}\p{Nl}\p{Other_Alphabetic}`,
		"Lowercase":   `\p{Ll}\p{Other_Lowercase}`,
		"Uppercase":   `\p{Lu}\p{Other_Uppercase}`,
		"Cased":       `\p{Lu}\p{Ll}\p{Lt}\p{Other_Lowercase}\p{Other_Uppercase}`,
		"Math":        `\p{Sm}\p{Other_Math}`,
		"ID_Start":    `\p{L}\p{Nl}\p{Other_ID_Start}`,
		"ID_Continue": `\p{L}\p{Nl}\p{Other_ID_Start}\p{Mn}\p{Mc}\p{Nd}\p{Pc}\p{Other_ID_Continue}`,
	}
	// Every category but Cn (unassigned); Grapheme_Extend as
	// DerivedCoreProperties derives it.
	m["Assigned"] = `\p{L}\p{M}\p{N}\p{P}\p{S}\p{Z}\p{Cc}\p{Cf}\p{Co}\p{Cs}`
	m["Grapheme_Extend"] = `\p{Mn}\p{Me}\p{Other_Grapheme_Extend}`
	for alias, name := range map[string]string{"Gr_Ext": "Grapheme_Extend", "Alpha": "Alphabetic", "Lower": "Lowercase", "Upper": "Uppercase", "IDS": "ID_Start", "IDC": "ID_Continue"} {
		m[alias] = m[name]
	}
	return m
}()

// propertyAliases are the short names ECMA-262's u flag accepts for binary
// properties regexp2 knows by their long names alone (PropertyAliases.txt).
var propertyAliases = map[string]string{
	"AHex": "ASCII_Hex_Digit", "Bidi_C": "Bidi_Control", "Dep": "Deprecated", "Dia": "Diacritic",
	"Ext": "Extender", "Hex": "Hex_Digit", "IDSB": "IDS_Binary_Operator", "IDST": "IDS_Trinary_Operator",
	"Ideo": "Ideographic", "Join_C": "Join_Control", "LOE": "Logical_Order_Exception",
	"NChar": "Noncharacter_Code_Point", "Pat_Syn": "Pattern_Syntax", "Pat_WS": "Pattern_White_Space",
	"QMark": "Quotation_Mark", "SD": "Soft_Dotted", "Term": "Terminal_Punctuation",
	"UIdeo": "Unified_Ideograph", "VS": "Variation_Selector", "space": "White_Space",
}

// scriptAliases are the ISO 15924 codes ECMA-262 accepts as Script values
// (\p{Script=Latn}, \p{sc=Grek}), each with the long name regexp2 and Go's
// unicode.Scripts know (PropertyValueAliases.txt).
var scriptAliases = map[string]string{
	"Adlm": "Adlam", "Aghb": "Caucasian_Albanian", "Arab": "Arabic", "Armi": "Imperial_Aramaic",
	"Armn": "Armenian", "Avst": "Avestan", "Bali": "Balinese", "Bamu": "Bamum", "Bass": "Bassa_Vah",
	"Batk": "Batak", "Beng": "Bengali", "Bhks": "Bhaiksuki", "Bopo": "Bopomofo", "Brah": "Brahmi",
	"Brai": "Braille", "Bugi": "Buginese", "Buhd": "Buhid", "Cakm": "Chakma", "Cans": "Canadian_Aboriginal",
	"Cari": "Carian", "Cher": "Cherokee", "Chrs": "Chorasmian", "Copt": "Coptic", "Qaac": "Coptic",
	"Cpmn": "Cypro_Minoan", "Cprt": "Cypriot", "Cyrl": "Cyrillic", "Deva": "Devanagari",
	"Diak": "Dives_Akuru", "Dogr": "Dogra", "Dsrt": "Deseret", "Dupl": "Duployan",
	"Egyp": "Egyptian_Hieroglyphs", "Elba": "Elbasan", "Elym": "Elymaic", "Ethi": "Ethiopic",
	"Geor": "Georgian", "Glag": "Glagolitic", "Gong": "Gunjala_Gondi", "Gonm": "Masaram_Gondi",
	"Goth": "Gothic", "Gran": "Grantha", "Grek": "Greek", "Gujr": "Gujarati", "Guru": "Gurmukhi",
	"Hang": "Hangul", "Hani": "Han", "Hano": "Hanunoo", "Hatr": "Hatran", "Hebr": "Hebrew",
	"Hira": "Hiragana", "Hluw": "Anatolian_Hieroglyphs", "Hmng": "Pahawh_Hmong",
	"Hmnp": "Nyiakeng_Puachue_Hmong", "Hung": "Old_Hungarian", "Ital": "Old_Italic", "Java": "Javanese",
	"Kali": "Kayah_Li", "Kana": "Katakana", "Khar": "Kharoshthi", "Khmr": "Khmer", "Khoj": "Khojki",
	"Kits": "Khitan_Small_Script", "Knda": "Kannada", "Kthi": "Kaithi", "Lana": "Tai_Tham", "Laoo": "Lao",
	"Latn": "Latin", "Lepc": "Lepcha", "Limb": "Limbu", "Lina": "Linear_A", "Linb": "Linear_B",
	"Lyci": "Lycian", "Lydi": "Lydian", "Mahj": "Mahajani", "Maka": "Makasar", "Mand": "Mandaic",
	"Mani": "Manichaean", "Marc": "Marchen", "Medf": "Medefaidrin", "Mend": "Mende_Kikakui",
	"Merc": "Meroitic_Cursive", "Mero": "Meroitic_Hieroglyphs", "Mlym": "Malayalam", "Mong": "Mongolian",
	"Mroo": "Mro", "Mtei": "Meetei_Mayek", "Mult": "Multani", "Mymr": "Myanmar", "Nagm": "Nag_Mundari",
	"Nand": "Nandinagari", "Narb": "Old_North_Arabian", "Nbat": "Nabataean", "Nkoo": "Nko", "Nshu": "Nushu",
	"Ogam": "Ogham", "Olck": "Ol_Chiki", "Orkh": "Old_Turkic", "Orya": "Oriya", "Osge": "Osage",
	"Osma": "Osmanya", "Ougr": "Old_Uyghur", "Palm": "Palmyrene", "Pauc": "Pau_Cin_Hau", "Perm": "Old_Permic",
	"Phag": "Phags_Pa", "Phli": "Inscriptional_Pahlavi", "Phlp": "Psalter_Pahlavi", "Phnx": "Phoenician",
	"Plrd": "Miao", "Prti": "Inscriptional_Parthian", "Rjng": "Rejang", "Rohg": "Hanifi_Rohingya",
	"Runr": "Runic", "Samr": "Samaritan", "Sarb": "Old_South_Arabian", "Saur": "Saurashtra",
	"Sgnw": "SignWriting", "Shaw": "Shavian", "Shrd": "Sharada", "Sidd": "Siddham", "Sind": "Khudawadi",
	"Sinh": "Sinhala", "Sogd": "Sogdian", "Sogo": "Old_Sogdian", "Sora": "Sora_Sompeng", "Soyo": "Soyombo",
	"Sund": "Sundanese", "Sylo": "Syloti_Nagri", "Syrc": "Syriac", "Tagb": "Tagbanwa", "Takr": "Takri",
	"Tale": "Tai_Le", "Talu": "New_Tai_Lue", "Taml": "Tamil", "Tang": "Tangut", "Tavt": "Tai_Viet",
	"Telu": "Telugu", "Tfng": "Tifinagh", "Tglg": "Tagalog", "Thaa": "Thaana", "Tibt": "Tibetan",
	"Tirh": "Tirhuta", "Tnsa": "Tangsa", "Ugar": "Ugaritic", "Vaii": "Vai", "Vith": "Vithkuqi",
	"Wara": "Warang_Citi", "Wcho": "Wancho", "Xpeo": "Old_Persian", "Xsux": "Cuneiform", "Yezi": "Yezidi",
	"Yiii": "Yi", "Zanb": "Zanabazar_Square", "Zinh": "Inherited", "Qaai": "Inherited", "Zyyy": "Common",
}

// surrogatePair reads the code point of a lead and a trail surrogate
// escape at the start of p (`\uD83D\uDE00`).
func surrogatePair(p string) (rune, bool) {
	if len(p) < 12 || p[6] != '\\' || p[7] != 'u' {
		return 0, false
	}
	hi, err1 := strconv.ParseUint(p[2:6], 16, 16)
	lo, err2 := strconv.ParseUint(p[8:12], 16, 16)
	if err1 != nil || err2 != nil || hi < 0xD800 || hi > 0xDBFF || lo < 0xDC00 || lo > 0xDFFF {
		return 0, false
	}
	return utf16.DecodeRune(rune(hi), rune(lo)), true
}

// refInst is one compilation of a schema that has patterns, with its own
// match budget. The compiled regexps are not shared between concurrent
// validations (each sets its own timeout), so a validator with patterns
// keeps a pool of them.
type refInst struct {
	sch *jsonschema.Schema
	b   *matchBudget
	// uniqueRec is Validator.uniqueRec, found by the cost check (set
	// only when compileRef checked).
	uniqueRec bool
}

type refPool struct {
	// free holds idle instances; it is bounded, and unlike a sync.Pool
	// not emptied by the garbage collector (a compilation costs far more
	// than a validation).
	free chan *refInst
	// compile makes another instance (the schema compiled once already).
	compile func() (*refInst, error)
	// slow is set for a schema whose compilation took slowCompile or
	// more: a validation finding no idle instance waits for one once
	// maxSlowInsts exist, rather than compile another (a schema of
	// thousands of subschemas takes seconds: each concurrent call spent
	// them before its provider ran, found by p177).
	slow bool
	mu   sync.Mutex
	made int // instances in free or in use
}

// slowCompile is the compilation time from which a schema's validations
// share its instances rather than compile more (a validation takes
// microseconds to milliseconds).
const slowCompile = 20 * time.Millisecond

// maxSlowInsts is how many instances a slow schema has at most.
const maxSlowInsts = 2

func newRefPool(compile func() (*refInst, error), slow bool) *refPool {
	return &refPool{free: make(chan *refInst, 8), compile: compile, slow: slow}
}

func (p *refPool) get() (*refInst, error) {
	select {
	case x := <-p.free:
		return x, nil
	default:
	}
	for {
		p.mu.Lock()
		if !p.slow || p.made < maxSlowInsts {
			p.made++
			p.mu.Unlock()
			break
		}
		p.mu.Unlock()
		// Each validation is bounded (patternTimeout); an instance
		// dropped meanwhile (its validation panicked) is made again.
		select {
		case x := <-p.free:
			return x, nil
		case <-time.After(100 * time.Millisecond):
		}
	}
	x, err := p.compile()
	if err != nil {
		p.drop()
	}
	return x, err
}

func (p *refPool) put(x *refInst) {
	select {
	case p.free <- x:
	default: // more concurrent validations than kept instances
		p.drop()
	}
}

// drop forgets an instance not given back (its validation panicked).
func (p *refPool) drop() {
	p.mu.Lock()
	p.made--
	p.mu.Unlock()
}

// timedOutError describes a validation whose patterns ran out of time, at
// the first place in value where the string it was matching occurs. It
// names the string by that pointer and its length, never quotes it: the
// message reaches the audit log, which holds no string value of params
// (docs/audit.md), as a pattern that fails does not quote it either.
func timedOutError(value any, pt patternTimedOut) *ValidationError {
	return &ValidationError{Path: pointer(findString(value, pt.s)),
		Message: fmt.Sprintf("matching a string of %d bytes against pattern %q took too long (patterns have %v for a whole value)", len(pt.s), pt.pattern, patternTimeout)}
}

// findString returns the path of the first string or object key equal to s
// in value (keys in sorted order), or nil.
func findString(value any, s string) []string {
	var walk func(v any) ([]string, bool)
	walk = func(v any) ([]string, bool) {
		switch x := v.(type) {
		case string:
			return nil, x == s
		case []any:
			for i, e := range x {
				if p, ok := walk(e); ok {
					return append([]string{strconv.Itoa(i)}, p...), true
				}
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				if k == s {
					return []string{k}, true
				}
				if p, ok := walk(x[k]); ok {
					return append([]string{k}, p...), true
				}
			}
		}
		return nil, false
	}
	p, _ := walk(value)
	return p
}

// goPattern compiles p with Go's regexp when p stays inside a subset where
// Go (RE2) and ECMA-262 agree on every string; otherwise it returns nil and
// the schema uses the reference validator.
//
// The subset: literal characters; ^ $ | ( ) (?: ; the quantifiers * + ? and
// {n} {n,} {n,m} with their lazy forms; \d \D \w \W; escapes of syntax
// characters and \n \r \t \f \v; bracket classes of those without nested '['
// and not starting with ']'. Excluded because the two dialects differ: '.'
// (line terminators), \s \S (the white space set), \b \B (regexp2 counts
// non-ASCII letters as word characters there), \p, \u, \x, back
// references, look-around, named groups, inline flags.
func goPattern(p string) *regexp.Regexp {
	if !goSafe(p) {
		return nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return nil
	}
	return re
}

func goSafe(p string) bool {
	inClass := false
	classStart := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '\\' {
			if i+1 >= len(p) {
				return false
			}
			i++
			e := p[i]
			switch {
			case e == 'd' || e == 'D' || e == 'w' || e == 'W':
			case e == 'n' || e == 'r' || e == 't' || e == 'f' || e == 'v':
			case isSyntaxChar(e):
			default:
				return false
			}
			classStart = false
			continue
		}
		if inClass {
			switch c {
			case ']':
				if classStart {
					return false
				}
				inClass = false
			case '[':
				return false
			}
			classStart = false
			continue
		}
		switch c {
		case '.':
			return false
		case '[':
			inClass, classStart = true, true
			if i+1 < len(p) && p[i+1] == '^' {
				i++ // negation; a ']' right after it is still refused
			}
		case '(':
			if i+1 < len(p) && p[i+1] == '?' {
				if i+2 >= len(p) || p[i+2] != ':' {
					return false
				}
				i += 2
			}
		case '{':
			j := quantifierEnd(p, i)
			if j < 0 {
				return false
			}
			i = j
		}
	}
	return !inClass
}

// quantifierEnd returns the index of the '}' closing a {n}, {n,} or {n,m}
// quantifier that starts at p[i] == '{', or -1.
func quantifierEnd(p string, i int) int {
	j := i + 1
	digits := 0
	for j < len(p) && p[j] >= '0' && p[j] <= '9' {
		j++
		digits++
	}
	if digits == 0 || j >= len(p) {
		return -1
	}
	if p[j] == ',' {
		j++
		for j < len(p) && p[j] >= '0' && p[j] <= '9' {
			j++
		}
	}
	if j < len(p) && p[j] == '}' {
		return j
	}
	return -1
}

func isSyntaxChar(c byte) bool {
	switch c {
	case '^', '$', '\\', '.', '*', '+', '?', '(', ')', '[', ']', '{', '}', '|', '/', '-':
		return true
	}
	return false
}
