package config

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aios-host/aios-host/internal/editdist"
	"gopkg.in/yaml.v3"
)

// Error is one problem in a configuration file.
type Error struct {
	File string // file name, "config" when unknown
	Line int    // 1-based, 0 when unknown
	Path string // key path, e.g. agents.cli.grants[1]
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

var (
	nodeType     = reflect.TypeOf(yaml.Node{})
	durationType = reflect.TypeOf(time.Duration(0))
)

// decodeStrict checks root against out's type (unknown keys are errors),
// records the line of every key path in lines (when not nil), then decodes.
// prefix is the key path of root inside the file. Paths whose value is an
// anchored node already checked under another path are added to shared
// (when not nil): see Config.lineOf.
func decodeStrict(root *yaml.Node, out any, file, prefix string, lines map[string]int, shared map[string]bool) error {
	return decodeStrictNulls(root, out, file, prefix, lines, shared, nil)
}

// decodeStrictNulls is decodeStrict that also adds to nulls (when not nil)
// the key paths of the lists and mappings the file gives as null
// (`methods:` with no value), which decode as none at all: see
// Config.nullLists.
func decodeStrictNulls(root *yaml.Node, out any, file, prefix string, lines map[string]int, shared, nulls map[string]bool) error {
	n := root
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	t := reflect.TypeOf(out)
	if t == nil || t.Kind() != reflect.Pointer {
		return fmt.Errorf("config: decode needs a pointer, got %T", out)
	}
	w := newWalker(file, lines, shared)
	w.nulls = nulls
	w.check(n, t.Elem(), prefix, nil)
	if err := w.errs.err(); err != nil {
		return err
	}
	if err := n.Decode(out); err != nil {
		return w.typeErrors(err)
	}
	return nil
}

// walker checks a node tree against a Go type, before yaml.v3 decodes it:
// yaml.v3 ignores unknown keys and truncates fractional numbers into
// integers, so both are refused here, with their line and key path.
//
// Aliases are followed, so an anchored node is checked against the schema
// of every place it is used (unknown keys there are errors too). Each
// (node, type) pair is checked once, which bounds the work by the number of
// nodes times the number of types of the schema however the aliases nest
// (a "billion laughs" file costs no more than its size).
type walker struct {
	file   string
	lines  map[string]int     // key path → line of its key
	shared map[string]bool    // paths whose (aliased) value was checked under another path
	nulls  map[string]bool    // paths of lists given as null (nil: not recorded)
	values map[int][]valueAt  // line → typed value nodes on it, for yaml.v3's type errors
	seen   map[walkVisit]bool // (node, type) pairs checked
	// aliasUses are, by anchored node, the places (beyond the first) an
	// alias or a merge used it, in the file's order: yaml.v3 decodes and
	// reports an error inside it once per use (typeErrors).
	aliasUses map[*yaml.Node][]aliasUse
	nodeAt    map[string]*yaml.Node // key path → its value node, made by aliasUseOf
	errs      errList
}

// aliasUse is a place an anchored node was used again: the key path of
// that use and the alias it was written with.
type aliasUse struct {
	path string
	via  *yaml.Node
}

type walkVisit struct {
	n *yaml.Node
	t reflect.Type
}

type valueAt struct {
	path string
	n    *yaml.Node
	typ  string // the Go type it decodes into, as yaml.v3's errors name it
}

func newWalker(file string, lines map[string]int, shared map[string]bool) *walker {
	if lines == nil {
		lines = map[string]int{}
	}
	if shared == nil {
		shared = map[string]bool{}
	}
	return &walker{file: file, lines: lines, shared: shared, values: map[int][]valueAt{}, seen: map[walkVisit]bool{}, aliasUses: map[*yaml.Node][]aliasUse{}}
}

// setLine records the line of path; the first record wins (a mapping's own
// keys are walked before its merged ones, which they override).
func (w *walker) setLine(path string, line int) {
	if _, ok := w.lines[path]; !ok {
		w.lines[path] = line
	}
}

func (w *walker) bad(n *yaml.Node, path, msg string, via *yaml.Node) {
	if via != nil {
		msg += fmt.Sprintf(" (through the alias *%s at line %d)", via.Value, via.Line)
	}
	w.errs.add(&Error{File: w.file, Line: n.Line, Path: path, Msg: msg})
}

// resolveAlias returns the node an alias stands for (n itself when it is no
// alias), and the alias (nil when none). yaml.v3 gives an unknown anchor's
// alias no target; it reports that itself.
func resolveAlias(n *yaml.Node) (node, via *yaml.Node) {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		via, n = n, n.Alias
	}
	return n, via
}

// isMerge reports a "<<" merge key, as yaml.v3 recognises it.
func isMerge(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "" || k.Tag == "!" || k.Tag == "!!merge" || k.Tag == "tag:yaml.org,2002:merge")
}

// keyName returns the text of a mapping key (an alias key stands for its
// anchored scalar); ok is false for a key that is no scalar, which yaml.v3
// refuses itself for string keys.
func keyName(k *yaml.Node) (name string, ok bool) {
	k, _ = resolveAlias(k)
	if k == nil || k.Kind != yaml.ScalarNode {
		return "", false
	}
	return k.Value, true
}

// check walks n alongside the Go type t; path is n's key path and via the
// alias n was reached through (nil when none). Mapping keys that name no
// field of a struct are reported; yaml.Node fields are left to their owners
// (who check them, aliases included, with DecodeSection or Config.Decode).
func (w *walker) check(n *yaml.Node, t reflect.Type, path string, via *yaml.Node) {
	w.setLine(path, n.Line)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nodeType {
		if via == nil {
			w.sectionLines(n, path, 0)
		}
		return
	}
	var alias *yaml.Node
	if n.Kind == yaml.AliasNode {
		if n, alias = resolveAlias(n); n == nil {
			return // unknown anchor: Decode reports it
		}
		via = alias
	}
	visit := walkVisit{n, t}
	if w.seen[visit] {
		// Checked already, through another path: the lines of its keys
		// are recorded under that path only.
		w.shared[path] = true
		if alias != nil {
			w.aliasUses[n] = append(w.aliasUses[n], aliasUse{path, alias})
		}
		return
	}
	w.seen[visit] = true
	w.values[n.Line] = append(w.values[n.Line], valueAt{path, n, t.String()})
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" && w.nulls != nil {
			w.nulls[path] = true // (an agent's rate: per_caller's, not none)
		}
		if n.Kind != yaml.MappingNode {
			return // Decode reports the type mismatch
		}
		fields := yamlFields(t)
		var merges []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if isMerge(k) {
				merges = append(merges, v)
				continue
			}
			name, ok := keyName(k)
			if !ok {
				continue // Decode reports a key that is no string
			}
			f, ok := fields[name]
			if !ok {
				w.bad(k, join(path, name), fmt.Sprintf("unknown key %q%s (known keys: %s)", name, suggest(name, fields), strings.Join(sortedKeys(fields), ", ")), via)
				continue
			}
			p := join(path, name)
			w.setLine(p, k.Line)
			w.check(v, f.Type, p, via)
		}
		for _, m := range merges {
			w.merge(m, t, path, via)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		if len(n.Content)/2 > MaxMapEntries {
			// yaml.v3 compares every key of a mapping it decodes into a
			// map with every other: 75000 keys (a 1 MiB tool.aios.yaml
			// of artifact.files) took 20 s to decode, 128000 agents 3.5
			// minutes.
			w.bad(n, path, fmt.Sprintf("%d entries, more than the %d one mapping may hold", len(n.Content)/2, MaxMapEntries), via)
			return
		}
		var merges []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if isMerge(k) {
				merges = append(merges, v)
				continue
			}
			name, ok := keyName(k)
			if !ok {
				continue
			}
			p := joinKey(path, name)
			w.setLine(p, k.Line)
			w.check(v, t.Elem(), p, via)
		}
		for _, m := range merges {
			w.merge(m, t, path, via)
		}
	case reflect.Slice, reflect.Array:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" && w.nulls != nil {
			w.nulls[path] = true
		}
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, e := range n.Content {
			p := path + "[" + strconv.Itoa(i) + "]"
			w.setLine(p, e.Line)
			if r, _ := resolveAlias(e); r != nil && r.Kind == yaml.ScalarNode && r.ShortTag() == "!!null" {
				// yaml.v3 drops it from the list without a word.
				w.bad(e, p, "empty entry (null): give a value or remove the line", via)
				continue
			}
			w.check(e, t.Elem(), p, via)
		}
	case reflect.Float32, reflect.Float64:
		if n.ShortTag() == "!!int" { // 010 read as 8; 010.5 is 10.5
			w.leadingZero(n, path, via)
		}
		// A number past the float range (1e400), which yaml.v3 tags
		// !!str: it was refused "cannot unmarshal !!str `1e400` into
		// float64 (want a number)", which it is (found by p192).
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && n.Style == 0 {
			if _, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), t.Bits()); errors.Is(err, strconv.ErrRange) {
				w.bad(n, path, fmt.Sprintf("%s is out of range (a number's magnitude is at most %g)", n.Value, maxFloat(t.Bits())), via)
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if t == durationType {
			w.duration(n, path, via)
			return
		}
		if w.leadingZero(n, path, via) || w.sizeWithUnit(n, path, via) {
			return
		}
		// A whole number past the field's range was refused with "want a
		// whole number", which it is: one past the int64 and uint64 range
		// too, which yaml.v3 tags !!float.
		v := strings.ReplaceAll(n.Value, "_", "")
		if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float" && wholeNumber.MatchString(v)) {
			var err error
			var most, least string
			if t.Kind() >= reflect.Uint && t.Kind() <= reflect.Uintptr {
				_, err = strconv.ParseUint(strings.TrimPrefix(v, "+"), 0, t.Bits())
				most, least = strconv.FormatUint(1<<t.Bits()-1, 10), "0"
			} else {
				_, err = strconv.ParseInt(v, 0, t.Bits())
				most, least = strconv.FormatInt(1<<(t.Bits()-1)-1, 10), strconv.FormatInt(-1<<(t.Bits()-1), 10)
			}
			switch {
			case errors.Is(err, strconv.ErrRange) && strings.HasPrefix(v, "-"):
				w.bad(n, path, fmt.Sprintf("%s is too small (at least %s)", n.Value, least), via)
			case errors.Is(err, strconv.ErrRange):
				w.bad(n, path, fmt.Sprintf("%s is too large (at most %s)", n.Value, most), via)
			case n.ShortTag() == "!!float": // !!float 1024
				w.bad(n, path, fmt.Sprintf("want an integer, got %s", n.Value), via)
			}
			return
		}
		// yaml.v3 truncates a float into an integer (4.5 becomes 4, -.inf
		// the smallest int64): refuse every float, 4.0 and 1e6 included.
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" {
			w.bad(n, path, fmt.Sprintf("want an integer, got %s", n.Value), via)
		}
	}
}

// MaxMapEntries bounds the entries of one mapping decoded into a map
// (agents, providers, rate_limits.per_tool, a card's artifact.files):
// decoding compares every key with every other, so a bigger one cost
// seconds to minutes of CPU (10000 cost 0.1 s).
const MaxMapEntries = 10000

// leadingZero refuses a number written with a leading 0 (010, 08,
// 04194304), which yaml.v3 reads as YAML 1.1 octal when it can (010 was
// 8, silently, as a count or a rate) and as a float otherwise ("want an
// integer, got 08"). It reports whether n is one.
func (w *walker) leadingZero(n *yaml.Node, path string, via *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") || !leadingZeroRE.MatchString(n.Value) {
		return false
	}
	w.bad(n, path, fmt.Sprintf("%s has a leading 0, which makes YAML read it as octal (010 is 8): write it without the leading 0, or with 0o for octal", n.Value), via)
	return true
}

// sizeWithUnit refuses a size written with a unit (10MiB, 2 GB, 512k) for
// a key that takes a whole number of bytes (a name ending in _bytes) or
// of MiB (_mib, _mb), saying the number to write: yaml.v3 said "cannot
// unmarshal !!str `10MiB` into int64", not the key's unit nor how many
// bytes 10MiB is. A unit that may be decimal or binary (MB, M) gets both
// numbers. It reports whether n is one.
func (w *walker) sizeWithUnit(n *yaml.Node, path string, via *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return false
	}
	key := path[strings.LastIndexByte(path, '.')+1:]
	var unit int64
	var unitName string
	switch {
	case strings.HasSuffix(key, "_bytes"):
		unit, unitName = 1, "bytes"
	case strings.HasSuffix(key, "_mib") || strings.HasSuffix(key, "_mb"):
		unit, unitName = 1<<20, "MiB"
	default:
		return false
	}
	m := sizeRE.FindStringSubmatch(strings.TrimSpace(n.Value))
	if m == nil || m[2] == "" && (m[3] != "" || m[4] == "") {
		return false
	}
	num, ok := new(big.Rat).SetString(m[1])
	if !ok {
		return false
	}
	prefix := strings.ToUpper(m[2])
	power := strings.Index("KMGTP", prefix) + 1 // 0: no prefix (bytes)
	if prefix == "" {
		power = 0
	}
	// in returns the value in the key's unit when it is whole and fits.
	in := func(base int64) (string, bool) {
		v := new(big.Rat).Mul(num, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(base), big.NewInt(int64(power)), nil)))
		v.Quo(v, new(big.Rat).SetInt64(unit))
		if !v.IsInt() || !v.Num().IsInt64() {
			return "", false
		}
		return v.Num().String(), true
	}
	shown := strings.TrimRight(strings.TrimRight(m[1], "0"), ".")
	if !strings.Contains(m[1], ".") {
		shown = m[1]
	}
	var write []string
	switch {
	case power == 0 || m[3] != "": // bytes, or KiB, Mi...: binary
		if v, ok := in(1024); ok {
			write = append(write, v)
		}
	default: // MB, M: decimal or binary
		dec, decOK := in(1000)
		bin, binOK := in(1024)
		decName := strings.ToLower(prefix[:1])
		if prefix != "K" {
			decName = prefix
		}
		if decOK {
			write = append(write, fmt.Sprintf("%s (%s %sB)", dec, shown, decName))
		}
		if binOK {
			write = append(write, fmt.Sprintf("%s (%s %siB)", bin, shown, prefix))
		}
	}
	msg := fmt.Sprintf("%q has a unit: the key takes a whole number of %s, without one", n.Value, unitName)
	if len(write) > 0 {
		msg += ": write " + strings.Join(write, " or ")
	}
	w.bad(n, path, msg, via)
	return true
}

// sizeRE matches a size with a unit: a number, then a prefix (k, M, G, T,
// P; "i" for binary) and "B", or either alone.
var sizeRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?)\s*([kKmMgGtTpP]?)([iI]?)([bB]?)$`)

// leadingZeroRE matches a number with a leading 0 before a digit.
var leadingZeroRE = regexp.MustCompile(`^[-+]?0[0-9_]*[0-9]`)

// maxSectionDepth bounds how deep sectionLines records key paths.
const maxSectionDepth = 16

// sectionLines records the lines of the key paths inside a section kept as
// yaml.Node (discovery.keys[0].expires), so that its owner can name them
// with Config.Line. Aliases are not followed: the owner's Decode checks
// them against its own schema.
func (w *walker) sectionLines(n *yaml.Node, path string, depth int) {
	if depth >= maxSectionDepth {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			name, ok := keyName(k)
			if !ok || isMerge(k) {
				continue
			}
			p := joinKey(path, name)
			w.setLine(p, k.Line)
			w.sectionLines(v, p, depth+1)
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			p := path + "[" + strconv.Itoa(i) + "]"
			w.setLine(p, e.Line)
			w.sectionLines(e, p, depth+1)
		}
	}
}

// merge checks the value of a "<<" key of a mapping at path: a mapping, an
// alias of one, or a sequence of those, each merged into the same place.
func (w *walker) merge(v *yaml.Node, t reflect.Type, path string, via *yaml.Node) {
	if v.Kind == yaml.SequenceNode {
		for _, e := range v.Content {
			w.check(e, t, path, via)
		}
		return
	}
	w.check(v, t, path, via) // Decode reports a value that is no mapping
}

// duration refuses a duration string that time.ParseDuration would
// truncate ("1.5ns" is 1ns). Other bad durations are left to Decode. A
// bare 0, which the docs offer for "the default" and which needs no unit
// (time.ParseDuration reads "0"), is decoded as the zero duration: yaml.v3
// takes a duration from a string only.
func (w *walker) duration(n *yaml.Node, path string, via *yaml.Node) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" && n.Value == "0" {
		n.Tag = "!!str"
		return
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return
	}
	if _, err := time.ParseDuration(n.Value); err != nil {
		if durationSyntax.MatchString(n.Value) {
			// Written right, but past what a duration holds: yaml.v3
			// said "want a duration such as 30s", which it is.
			w.bad(n, path, fmt.Sprintf("%q is longer than the longest duration, %s (about 292 years)", n.Value, time.Duration(1<<63-1)), via)
		}
		return
	}
	if !wholeNanoseconds(n.Value) {
		w.bad(n, path, fmt.Sprintf("%q is not a whole number of nanoseconds", n.Value), via)
	}
}

// wholeNumber matches a whole number as YAML writes one (underscores
// removed), whatever its size.
var wholeNumber = regexp.MustCompile(`^[-+]?(?:[0-9]+|0x[0-9a-fA-F]+|0o[0-7]+)$`)

// durationSyntax matches what time.ParseDuration reads, whatever its size.
var durationSyntax = regexp.MustCompile(`^[-+]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:ns|us|\x{b5}s|\x{3bc}s|ms|s|m|h))+$`)

var durationUnits = map[string]int64{
	"ns": 1, "us": 1e3, "\u00b5s": 1e3, "\u03bcs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9,
}

// wholeNanoseconds reports whether every term of a duration accepted by
// time.ParseDuration ("1h2.5m", "0.5us") is a whole number of nanoseconds.
func wholeNanoseconds(s string) bool {
	s = strings.TrimLeft(s, "+-")
	for s != "" {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		num := s[:i]
		s = s[i:]
		j := 0
		for j < len(s) && !(s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
			j++
		}
		unit, ok := durationUnits[s[:j]]
		s = s[j:]
		if !ok {
			return num == "0" || num == "" // "0" has no unit
		}
		_, frac, _ := strings.Cut(num, ".")
		frac = strings.TrimRight(frac, "0")
		if frac == "" {
			continue
		}
		f, ok := new(big.Rat).SetString("0." + frac)
		if !ok {
			return false
		}
		if !f.Mul(f, new(big.Rat).SetInt64(unit)).IsInt() {
			return false
		}
	}
	return true
}

// yamlFields maps the yaml key of every exported field of t to its field.
func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			ft := f.Type
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range yamlFields(ft) {
					out[k] = v
				}
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f
	}
	return out
}

func suggest(key string, fields map[string]reflect.StructField) string {
	keys := sortedKeys(fields)
	for _, k := range keys {
		if editdist.SameSpelling(k, key) {
			return fmt.Sprintf(", did you mean %q?", k)
		}
	}
	// Two adjacent letters swapped (`wrie`, `ptah`, `jwsk`): two edits,
	// past editdist.Limit for a key of four letters or less, which found
	// no key or a shorter one (`jwk` for `jwsk`).
	for _, k := range keys {
		if editdist.Transposed(strings.ToLower(key), strings.ToLower(k)) {
			return fmt.Sprintf(", did you mean %q?", k)
		}
	}
	// A misspelling (`comand`, `capabilites`): the closest key within
	// editdist.Limit edits.
	if best := editdist.Closest(key, keys, editdist.Limit(key)); best != "" {
		return fmt.Sprintf(", did you mean %q?", best)
	}
	// A word left out (`max_depth` for `max_call_depth`, `decode` for
	// nothing: one word alone matches too many): the one key holding
	// the given words in their order.
	words := strings.Split(strings.ToLower(key), "_")
	if len(words) < 2 {
		return ""
	}
	var match []string
	for _, k := range keys {
		if inOrder(words, strings.Split(strings.ToLower(k), "_")) {
			match = append(match, k)
		}
	}
	if len(match) == 1 {
		return fmt.Sprintf(", did you mean %q?", match[0])
	}
	return ""
}

// inOrder reports whether every word of sub is in words, in sub's order.
func inOrder(sub, words []string) bool {
	i := 0
	for _, w := range words {
		if i < len(sub) && w == sub[i] {
			i++
		}
	}
	return i == len(sub)
}

var plainKey = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// joinKey appends a map key, quoting it when it is not a plain word.
// JoinKey is the key path of key under path, as configuration errors
// write it: "rate_limits.per_tool.echo", `providers["org.x"]`.
func JoinKey(path, key string) string { return joinKey(path, key) }

func joinKey(path, key string) string {
	if plainKey.MatchString(key) {
		return join(path, key)
	}
	return path + "[" + strconv.Quote(key) + "]"
}

var lineRE = regexp.MustCompile(`^line (\d+): (.*)$`)

// typeErrors rewrites yaml.v3's "line N: cannot unmarshal ..." errors into
// Errors carrying the file and the key path of the value on that line. When
// a line holds several values (a flow mapping), the one yaml.v3 names is
// picked by its tag and text.
func (w *walker) typeErrors(err error) error {
	te, ok := err.(*yaml.TypeError)
	if !ok {
		return &Error{File: w.file, Msg: err.Error()}
	}
	byLine := map[int]string{}
	for p, l := range w.lines {
		if cur, ok := byLine[l]; !ok || morePrecise(p, cur) {
			byLine[l] = p
		}
	}
	var errs errList
	named := map[string]bool{} // paths an error names already
	said := map[string]int{}   // errors given, by file line, path and words
	for _, msg := range te.Errors {
		e := &Error{File: w.file, Msg: msg}
		if m := lineRE.FindStringSubmatch(msg); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Msg = m[2] + typeHint(m[2])
			match, onLine := w.valuePath(e.Line, m[2], named)
			dup := w.duplicatePath(e.Msg)
			switch {
			case dup != "":
				// The key given twice, not a value that happens to be on
				// the line of its second one.
				e.Path = dup
			case match != "":
				e.Path = match
				named[match] = true
			case byLine[e.Line] != "":
				e.Path = byLine[e.Line]
			default:
				e.Path = onLine
			}
		}
		if secretPath(e.Path) {
			// yaml.v3 quotes the value's first characters: of a
			// token written where a list or mapping goes, part of
			// the token reached the terminal and the service's log.
			e.Msg = valueExcerptRE.ReplaceAllString(e.Msg, "$1 (value not shown, as it may be a secret) into ")
		}
		// yaml.v3 decodes an anchored value at each of its uses, and
		// says an error in it again at each: the same line, path and
		// words. A repeat names the use it comes from, or is left out.
		if k := said[e.Error()]; k > 0 {
			said[e.Error()]++
			if !w.aliasUseOf(e, k) {
				continue
			}
		} else {
			said[e.Error()] = 1
		}
		errs.add(e)
	}
	return errs.err()
}

// valueExcerptRE matches yaml.v3's quote of a value in a type error:
// "cannot unmarshal !!str `sk-live...` into ".
var valueExcerptRE = regexp.MustCompile("^(cannot unmarshal \\S+) `.*` into ")

// secretWords are the words of a key that holds, or holds beneath it, a
// secret: server.tokens, an MCP server's token, env and oauth, a remote's
// token, an API key.
var secretWords = []string{"token", "secret", "pass", "key", "auth", "credential", "env", "header"}

// secretPath says whether a key of the key path p names a secret (or a
// section holding secrets), whose value an error must not quote.
func secretPath(p string) bool {
	p = strings.ToLower(p)
	for _, w := range secretWords {
		if strings.Contains(p, w) {
			return true
		}
	}
	return false
}

// aliasUseOf rewrites e, an error about a value inside an anchored node
// said again by yaml.v3 for the k-th use (beyond the first) of that node,
// to name the key of that use and its alias. It reports whether it found
// the use.
func (w *walker) aliasUseOf(e *Error, k int) bool {
	if w.nodeAt == nil {
		w.nodeAt = map[string]*yaml.Node{}
		for _, vs := range w.values {
			for _, v := range vs {
				w.nodeAt[v.path] = v.n
			}
		}
	}
	// The anchored node is e's value or encloses it: its path is e's cut
	// before a '.' or '[', the longest first.
	for i := len(e.Path); i > 0; i-- {
		if i < len(e.Path) && e.Path[i] != '.' && e.Path[i] != '[' {
			continue
		}
		if uses := w.aliasUses[w.nodeAt[e.Path[:i]]]; len(uses) >= k {
			u := uses[k-1]
			e.Path = u.path + e.Path[i:]
			e.Msg += fmt.Sprintf(" (through the alias *%s at line %d)", u.via.Value, u.via.Line)
			return true
		}
	}
	return false
}

var duplicateRE = regexp.MustCompile(`^mapping key "(.*)" already defined at line (\d+)$`)

// duplicatePath is the key path of the key yaml.v3's message msg says is
// given twice ("mapping key \"limits\" already defined at line 1"): the
// path recorded for that key at its first line; "" when msg says
// something else or no path fits.
func (w *walker) duplicatePath(msg string) string {
	m := duplicateRE.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	line, _ := strconv.Atoi(m[2])
	best := ""
	for p, l := range w.lines {
		if l != line {
			continue
		}
		if p == m[1] || strings.HasSuffix(p, "."+m[1]) || strings.HasSuffix(p, "["+strconv.Quote(m[1])+"]") {
			if best == "" || len(p) < len(best) || len(p) == len(best) && p < best {
				best = p
			}
		}
	}
	return best
}

// typeHints say in the configuration's words what a value of a Go type
// yaml.v3 names is written like.
var typeHints = []struct{ into, hint string }{
	{"into config.Rate", "want a mapping such as {per_second: 10, burst: 20}"},
	{"into time.Duration", "want a duration such as 30s, 500ms or 2m"},
	{"into []string", "want a list such as [a, b]"},
	{"into int", "want a whole number"},
	{"into float64", "want a number"},
	{"into bool", "want true or false"},
}

// typeHint is " (want …)" for a yaml.v3 type error about a value of a type
// listed in typeHints, else "".
func typeHint(msg string) string {
	for _, h := range typeHints {
		if strings.HasSuffix(msg, h.into) || strings.HasSuffix(msg, h.into+"64") || strings.HasSuffix(msg, h.into+"32") {
			return " (" + h.hint + ")"
		}
	}
	// The other Go types a value goes into: a section or an entry (a
	// struct, "into config.Limits", "into js.Config"), a map, a list,
	// a single value given a list or a mapping.
	switch {
	case strings.Contains(msg, " into map["):
		return " (want a mapping of names to values, such as name: value)"
	case strings.Contains(msg, " into []"):
		return " (want a list such as [a, b])"
	case goStructRE.MatchString(msg):
		return " (want a mapping of keys, such as key: value)"
	case strings.HasSuffix(msg, " into string") && (strings.HasPrefix(msg, "cannot unmarshal !!seq ") || strings.HasPrefix(msg, "cannot unmarshal !!map ")):
		return " (want a single value, not a list or a mapping)"
	}
	return ""
}

// goStructRE matches yaml.v3's words for a value that does not go into a
// struct type ("into config.Limits").
var goStructRE = regexp.MustCompile(`^cannot unmarshal .* into \*?[a-z][a-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*$`)

// morePrecise prefers the longer (more specific) path, then the smaller.
func morePrecise(p, than string) bool {
	return len(p) > len(than) || (len(p) == len(than) && p < than)
}

// valuePath names the value on line that yaml.v3's message msg is about:
// "cannot unmarshal !!str `deep` into int" names a value by its tag and
// text (cut to 7 characters and "..." when longer than 10) and the Go type
// it goes into; of several such values on one line (a flow mapping), one
// that no error named yet (named) is preferred, so errors alike name each
// of their keys. match is the path of such a value, onLine that of any
// value on the line.
func (w *walker) valuePath(line int, msg string, named map[string]bool) (match, onLine string) {
	better := func(p, than string) bool {
		if than == "" || named[than] != named[p] {
			return than == "" || named[than]
		}
		return morePrecise(p, than)
	}
	typed := ""
	for _, v := range w.values[line] {
		if onLine == "" || morePrecise(v.path, onLine) {
			onLine = v.path
		}
		tag := v.n.ShortTag()
		text := ""
		if v.n.Kind == yaml.ScalarNode && tag != "!!seq" && tag != "!!map" {
			val := v.n.Value
			if len(val) > 10 {
				val = val[:7] + "..."
			}
			text = " `" + val + "`"
		}
		if !strings.HasPrefix(msg, "cannot unmarshal "+tag+text+" into ") {
			continue
		}
		if better(v.path, match) {
			match = v.path
		}
		if msg == "cannot unmarshal "+tag+text+" into "+v.typ && better(v.path, typed) {
			typed = v.path
		}
	}
	if typed != "" {
		match = typed
	}
	return match, onLine
}

// yamlSyntaxError turns yaml.v3's "yaml: line 3: ..." into an Error.
// yaml.v3 leaves "line N" out when the problem is on the first line (its
// marks count from 0, and 0 reads as unknown) and for an alias of an
// anchor that does not exist: data, the file's text, gives those lines.
func yamlSyntaxError(err error, file string, data []byte) error {
	e := &Error{File: file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	if m := lineRE.FindStringSubmatch(e.Msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		if yamlParserProblems[m[2]] {
			// yaml.v3 numbers its parser's lines from 0 (its
			// scanner's from 1): it named the line before.
			e.Line++
		}
		e.Msg = "YAML syntax: " + m[2]
		tabHint(e, data)
		return e
	}
	if m := unknownAnchorRE.FindStringSubmatch(e.Msg); m != nil {
		alias := regexp.MustCompile(`\*` + regexp.QuoteMeta(m[1]) + `(?:[\s,\]}]|$)`)
		if loc := alias.FindIndex(data); loc != nil {
			e.Line = bytes.Count(data[:loc[0]], []byte("\n")) + 1
		}
		e.Msg = "YAML: " + e.Msg
		return e
	}
	if !strings.Contains(e.Msg, "line ") {
		e.Line = 1
		e.Msg = "YAML syntax: " + e.Msg
		tabHint(e, data)
		badByte(e, data)
	}
	return e
}

// yamlParserProblems are the errors of yaml.v3's parser (parserc.go), as
// against its scanner's: their "line N" counts from 0.
var yamlParserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found duplicate %TAG directive":         true,
	"found incompatible YAML document":       true,
	"found undefined tag handle":             true,
}

// badByte gives the line of the first character yaml.v3's reader refuses
// to an error of that reader ("invalid leading UTF-8 octet", "control
// characters are not allowed"), which carries none: such an error named
// line 1 wherever the character was (a comment saved in Latin-1 at line
// 40), and says which byte or character it is. A file starting with a
// UTF-16 byte-order mark is left as it is.
func badByte(e *Error, data []byte) {
	if bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff}) {
		return
	}
	utf8Err := strings.Contains(e.Msg, "UTF-8") || strings.HasSuffix(e.Msg, "invalid Unicode character")
	if !utf8Err && !strings.HasSuffix(e.Msg, "control characters are not allowed") {
		return
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		var what string
		switch {
		case r == utf8.RuneError && size <= 1:
			what = fmt.Sprintf("byte 0x%02X is not UTF-8; save the file as UTF-8", data[i])
		case !yamlPrintable(r):
			what = fmt.Sprintf("%U is a control character", r)
		}
		if what != "" {
			e.Line = line
			e.Msg += fmt.Sprintf(" (column %d: %s)", col, what)
			return
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		i += size
	}
}

// yamlPrintable reports whether YAML allows r in a file (YAML 1.2
// §5.1, as yaml.v3's reader checks it).
func yamlPrintable(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0x7E || r == 0x85 ||
		r >= 0xA0 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// tabHint says so when a syntax error is a tab indenting a line, which
// yaml.v3 words as "found character that cannot start any token", naming
// no tab, or as "found a tab character that violates indentation" at the
// line of the key before the tab's (blank and comment lines between
// included): the error takes the tab's line.
func tabHint(e *Error, data []byte) {
	var from, to int
	switch {
	case strings.HasSuffix(e.Msg, "found character that cannot start any token"):
		from, to = e.Line, e.Line
	case strings.HasSuffix(e.Msg, "found a tab character that violates indentation"):
		from, to = e.Line, math.MaxInt
	default:
		return
	}
	for n, line := range bytes.SplitAfter(data, []byte("\n")) {
		if n+1 < from || n+1 > to {
			continue
		}
		indent := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]
		if bytes.IndexByte(indent, '\t') >= 0 {
			e.Line = n + 1
			e.Msg += " (a tab indents this line: YAML indents with spaces only)"
			return
		}
	}
}

// unknownAnchorRE matches yaml.v3's error for an alias (*name) of an
// anchor the file does not define.
var unknownAnchorRE = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// maxFloat is the largest finite float of bits (32 or 64).
func maxFloat(bits int) float64 {
	if bits == 32 {
		return math.MaxFloat32
	}
	return math.MaxFloat64
}
