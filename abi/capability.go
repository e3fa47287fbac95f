package abi

import (
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"

	"golang.org/x/net/idna"

	"github.com/aios-host/aios-host/internal/editdist"
)

// Capability kinds known to the host. The set is open: any identifier is a
// valid kind, so new kinds need no change here, except one a slip away from
// ReadSpace, WriteSpace, Network, Inference or CallTool (or equal to a
// known kind but for case): that is taken for a typo (NearKind).
const (
	CapReadSpace  = "ReadSpace"  // ReadSpace(space-pattern)
	CapWriteSpace = "WriteSpace" // WriteSpace(space-pattern)
	CapNetwork    = "Network"    // Network(host-pattern), e.g. Network(*.example.com)
	CapInference  = "Inference"  // Inference, no argument
	CapCallTool   = "CallTool"   // CallTool(tool-pattern), e.g. CallTool(pdf-*)
	CapClock      = "Clock"      // a WebAssembly guest's real WASI clocks and sleep
	CapRandom     = "Random"     // a WebAssembly guest's real WASI random source (crypto/rand)
)

// Capability is a parsed capability: Kind with an optional argument pattern.
// Patterns use '*' for any run of characters and '?' for one character.
type Capability struct {
	Kind string
	Arg  string
	// HasArg distinguishes "Kind" from "Kind()".
	HasArg bool
}

var argKinds = map[string]bool{CapReadSpace: true, CapWriteSpace: true, CapNetwork: true, CapCallTool: true}

// noArgKinds are held or not: an argument would make a custom pattern
// that the host's own check of the bare kind reads its own way (a
// provider asking for Clock(wall) got a WebAssembly guest's fake clock,
// and one asking for Random() the real random source, without a word).
var noArgKinds = map[string]bool{CapInference: true, CapClock: true, CapRandom: true}

// ParseCapability parses "Kind" or "Kind(arg)". Known kinds are checked for
// whether they take an argument.
func ParseCapability(s string) (Capability, error) {
	s = strings.TrimSpace(s)
	kind, arg, hasArg := s, "", false
	if i := strings.IndexByte(s, '('); i >= 0 {
		if !strings.HasSuffix(s, ")") {
			return Capability{}, fmt.Errorf("capability %q: missing closing parenthesis", s)
		}
		kind, arg, hasArg = s[:i], strings.TrimSpace(s[i+1:len(s)-1]), true
	}
	if !isIdent(kind) {
		return Capability{}, fmt.Errorf("capability %q: kind %q is not an identifier (want e.g. ReadSpace(name), Network(host), Inference, CallTool(pattern))", s, kind)
	}
	if k := NearKind(kind); k != "" {
		return Capability{}, fmt.Errorf("capability %q: unknown kind %q, did you mean %s? (a grant of a kind no tool requires grants nothing; a custom kind may not be one slip from a built-in one)", s, kind, k)
	}
	if strings.ContainsAny(arg, "()\n\r\t ") {
		return Capability{}, fmt.Errorf("capability %q: argument %q contains parentheses or white space", s, arg)
	}
	if argKinds[kind] && (!hasArg || arg == "") {
		return Capability{}, fmt.Errorf("capability %q: %s needs an argument, e.g. %s(name)", s, kind, kind)
	}
	if noArgKinds[kind] && hasArg {
		return Capability{}, fmt.Errorf("capability %q: %s takes no argument", s, kind)
	}
	if kind == CapNetwork {
		arg = networkPattern(arg)
	}
	return Capability{Kind: kind, Arg: arg, HasArg: hasArg}, nil
}

// networkPattern puts a Network argument in the form hosts are matched in
// (NetworkHost): lower case without a final dot, an IP address in its
// canonical form; so Network(API.Example.com) allows api.example.com.
func networkPattern(arg string) string {
	if !strings.ContainsAny(arg, "*?") {
		if h, err := NetworkHost(arg); err == nil {
			return h
		}
	}
	if arg != "." {
		arg = strings.TrimSuffix(arg, ".")
	}
	arg = strings.ToLower(arg)
	if !isASCII(arg) {
		// A pattern's internationalized labels in their ASCII form, as
		// NetworkHost gives hosts (*.münchen.de matched no host).
		labels := strings.Split(arg, ".")
		for i, l := range labels {
			if !isASCII(l) && !strings.ContainsAny(l, "*?") {
				if a, err := idna.Lookup.ToASCII(l); err == nil {
					labels[i] = strings.ToLower(a)
				}
			}
		}
		arg = strings.Join(labels, ".")
	}
	return arg
}

// typoKinds are the built-in kinds a custom kind may not be a slip away
// from; Clock and Random, short and near common words (Block, Check),
// are only matched ignoring case.
var typoKinds = []string{CapReadSpace, CapWriteSpace, CapNetwork, CapInference, CapCallTool}

// NearKind returns the built-in capability kind that kind is a likely typo
// of (a slip away from one of typoKinds: a letter wrong, missing or extra,
// two adjacent letters swapped, or two letters missing or extra; or equal
// to a built-in kind but for case), or "" (a built-in kind itself, or a
// custom kind further from every built-in one). Two letters replaced are
// not a slip: they make other words (ReadState, CallHook, Artwork,
// Reference), which are custom kinds.
func NearKind(kind string) string {
	lower := strings.ToLower(kind)
	for _, k := range []string{CapReadSpace, CapWriteSpace, CapNetwork, CapInference, CapCallTool, CapClock, CapRandom} {
		if kind == k {
			return ""
		}
		if lower == strings.ToLower(k) {
			return k
		}
	}
	for _, k := range typoKinds {
		if slip(lower, strings.ToLower(k)) {
			return k
		}
	}
	return ""
}

// slip reports whether a is b with one letter wrong, missing or extra,
// two adjacent letters swapped, or two letters missing or extra.
func slip(a, b string) bool {
	if editdist.Levenshtein(a, b, 2) <= 1 {
		return true
	}
	if len(a) == len(b) {
		return editdist.Transposed(a, b)
	}
	return len(a)+len(b)-2*lcs(a, b) <= 2
}

// lcs is the length of the longest common subsequence of a and b.
func lcs(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// MustCapability parses s and panics on error; for literals in code and tests.
func MustCapability(s string) Capability {
	c, err := ParseCapability(s)
	if err != nil {
		panic(err)
	}
	return c
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r == '_':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// String renders the capability in the form ParseCapability reads.
func (c Capability) String() string {
	if c.HasArg {
		return c.Kind + "(" + c.Arg + ")"
	}
	return c.Kind
}

// Covers reports whether holding c allows what req asks for: same kind, and
// c's argument pattern matches req's argument. A pattern argument in req is
// covered only when c's pattern covers every string req's could match
// (ReadSpace(a*) covers ReadSpace(ab*) and ReadSpace(a?c), not
// ReadSpace(*b)); this is checked conservatively (patternWithin: a few
// inclusions are not seen, and are refused).
func (c Capability) Covers(req Capability) bool {
	if c.Kind != req.Kind {
		return false
	}
	if !c.HasArg && !req.HasArg {
		return true
	}
	if c.Arg == "*" {
		return true
	}
	if c.Arg == req.Arg {
		return true
	}
	if strings.ContainsAny(req.Arg, "*?") {
		// A pattern is covered when every name it matches c matches
		// too: ReadSpace(a*) covers ReadSpace(ab*).
		if c.Kind == CapNetwork && addressPattern(c.Arg) && !addressPattern(req.Arg) {
			return false // req matches DNS names, c addresses only
		}
		return patternWithin(req.Arg, c.Arg)
	}
	if c.Kind == CapNetwork && addressPattern(c.Arg) && net.ParseIP(req.Arg) == nil {
		// Network(10.0.0.*) grants addresses: a DNS name beginning with
		// the same digits ("10.0.0.1.attacker.example") resolves wherever
		// its owner says.
		return false
	}
	return Glob(c.Arg, req.Arg)
}

// addressPattern reports whether a Network pattern with wildcards names IP
// addresses: besides its wildcards it holds only digits and dots (IPv4),
// or colons (IPv6: no host name holds one).
func addressPattern(p string) bool {
	if !strings.ContainsAny(p, "*?") {
		return false
	}
	if strings.Contains(p, ":") {
		return true
	}
	return strings.Trim(p, "0123456789.*?") == "" && strings.ContainsAny(p, "0123456789")
}

// Glob matches s against pattern with '*' (any run, including empty) and
// '?' (exactly one byte). No other character is special.
func Glob(pattern, s string) bool {
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, i
			p++
		case star >= 0:
			p = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// patternWithin reports whether every string pattern p matches, pattern q
// matches too. It reads p as a string in which q's '*' may stand for any
// run of p's characters and wildcards, q's '?' for one character or '?'
// of p, q's other characters for themselves: such a match exists only
// when q matches whatever p's wildcards become (sound). A few inclusions
// it does not see (a* within *?) are answered false, which refuses more,
// never less. Glob's algorithm: the first occurrence of each run between
// q's stars is the one to take.
func patternWithin(p, q string) bool {
	i, j := 0, 0 // in p, in q
	star, mark := -1, 0
	for i < len(p) {
		switch {
		case j < len(q) && q[j] != '*' && (q[j] == p[i] || q[j] == '?' && p[i] != '*'):
			i++
			j++
		case j < len(q) && q[j] == '*':
			star, mark = j, i
			j++
		case star >= 0:
			j = star + 1
			mark++
			i = mark
		default:
			return false
		}
	}
	for j < len(q) && q[j] == '*' {
		j++
	}
	return j == len(q)
}

// The bounds of globMeet: steps of its recursion for one pair of patterns,
// patterns it returns, and steps for all the pairs of one Intersect (a
// provider asking for a thousand patterns built to take the most steps
// each made one intersection take half a second).
const (
	meetSteps    = 4096
	meetPatterns = 16
	meetBudget   = 1 << 16
)

// globMeet returns patterns that together match exactly the strings both
// p and q match (none when none does): CallTool(pdf-*) and
// CallTool(*-extract) meet in pdf-*-extract and pdf-extract. ok is false
// when that takes more than meetSteps steps (or the *budget left, which
// it spends) or meetPatterns patterns.
func globMeet(p, q string, budget *int) (out []string, ok bool) {
	steps, most := 0, min(meetSteps, *budget)
	defer func() { *budget -= steps }()
	var meet func(p, q string) []string
	meet = func(p, q string) []string {
		if steps++; steps > most {
			return nil
		}
		switch {
		case p == "" || q == "":
			if strings.Trim(p+q, "*") == "" {
				return []string{""}
			}
			return nil
		case p[0] == '*' && q[0] == '*':
			// A string both match is a run both stars can take
			// followed by one that the rest of p and all of q, or
			// all of p and the rest of q, match.
			return prefixAll("*", append(meet(p[1:], q), meet(p, q[1:])...))
		case p[0] == '*':
			// p's star takes nothing, or the character q's first matches.
			return append(meet(p[1:], q), prefixAll(q[:1], meet(p, q[1:]))...)
		case q[0] == '*':
			return append(meet(p, q[1:]), prefixAll(p[:1], meet(p[1:], q))...)
		case p[0] == q[0] || q[0] == '?':
			return prefixAll(p[:1], meet(p[1:], q[1:]))
		case p[0] == '?':
			return prefixAll(q[:1], meet(p[1:], q[1:]))
		}
		return nil
	}
	all := meet(p, q)
	if steps > most {
		return nil, false
	}
	for _, s := range all {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) > meetPatterns {
		return nil, false
	}
	return out, true
}

// prefixAll puts prefix before each of list ("*" before "*x" makes "*x").
func prefixAll(prefix string, list []string) []string {
	for i, s := range list {
		if prefix != "*" || !strings.HasPrefix(s, "*") {
			list[i] = prefix + s
		}
	}
	return list
}

// Grants is a set of capabilities held by an agent or a provider.
type Grants []Capability

// ParseGrants parses a list of capability strings, naming the bad one.
func ParseGrants(list []string) (Grants, error) {
	g := make(Grants, 0, len(list))
	for _, s := range list {
		c, err := ParseCapability(s)
		if err != nil {
			return nil, err
		}
		g = append(g, c)
	}
	return g, nil
}

// Allows reports whether some grant covers req.
func (g Grants) Allows(req Capability) bool {
	for _, c := range g {
		if c.Covers(req) {
			return true
		}
	}
	return false
}

// Missing returns the first requirement in reqs that g does not allow.
func (g Grants) Missing(reqs []Capability) (Capability, bool) {
	for _, r := range reqs {
		if !g.Allows(r) {
			return r, true
		}
	}
	return Capability{}, false
}

// Strings renders the grants, sorted.
func (g Grants) Strings() []string {
	out := make([]string, len(g))
	for i, c := range g {
		out[i] = c.String()
	}
	sort.Strings(out)
	return out
}

// Intersect returns grants held by both a and b: every capability of a that
// b covers, every capability of b that a covers, and for two patterns of a
// kind that overlap, neither covering the other, the patterns of what both
// match (ReadSpace(a*) ∩ ReadSpace(*b) = ReadSpace(a*b); globMeet: one
// that takes more than its budget is left out). The result never allows
// anything that either side alone would refuse, which is what nested calls
// need (no confused deputy).
func Intersect(a, b Grants) Grants {
	out := make(Grants, 0, min(len(a), len(b)))
	seen := make(map[Capability]bool)
	add := func(c Capability) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	// inB[i]: b allows a[i]; inA[j]: a allows b[j] (read again below).
	inB, inA := make([]bool, len(a)), make([]bool, len(b))
	for i, c := range a {
		if inB[i] = b.Allows(c); inB[i] {
			add(c)
		}
	}
	for j, c := range b {
		if inA[j] = a.Allows(c); inA[j] {
			add(c)
		}
	}
	budget := meetBudget
	// Two patterns that overlap, neither within the other
	// (ReadSpace(a*) and ReadSpace(*b)): what both match. Each pattern
	// kept is checked to be within both (Covers), so a step globMeet got
	// wrong could only leave something out.
	for i, c := range a {
		if !c.HasArg || !strings.ContainsAny(c.Arg, "*?") || inB[i] {
			continue
		}
		for j, d := range b {
			if d.Kind != c.Kind || !d.HasArg || !strings.ContainsAny(d.Arg, "*?") || inA[j] {
				continue
			}
			if budget <= 0 {
				break
			}
			args, _ := globMeet(c.Arg, d.Arg, &budget)
			for _, arg := range args {
				if arg == "" {
					continue
				}
				m := Capability{Kind: c.Kind, Arg: arg, HasArg: true}
				if c.Covers(m) && d.Covers(m) {
					add(m)
				}
			}
		}
	}
	return out
}

// TrustLevel is a provider's trust tier (seed §10.3). Higher is more trusted.
type TrustLevel int

// The four tiers.
const (
	Untrusted TrustLevel = iota
	Community
	Verified
	System
)

var trustNames = [...]string{"Untrusted", "Community", "Verified", "System"}

func (t TrustLevel) String() string {
	if t >= 0 && int(t) < len(trustNames) {
		return trustNames[t]
	}
	return fmt.Sprintf("TrustLevel(%d)", int(t))
}

// ParseTrustLevel reads a tier name, case-insensitively.
func ParseTrustLevel(s string) (TrustLevel, error) {
	for i, n := range trustNames {
		if strings.EqualFold(s, n) {
			return TrustLevel(i), nil
		}
	}
	return Untrusted, fmt.Errorf("unknown trust level %q (want System, Verified, Community or Untrusted)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (t TrustLevel) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (t *TrustLevel) UnmarshalText(b []byte) error {
	v, err := ParseTrustLevel(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// NetworkHost puts host in the form Network(host) patterns are matched
// against, or says why it cannot be one: lower case without a final dot; a
// DNS name of letters, digits, '-', '_' and '.'; or an IP address in its
// canonical form (an IPv4-mapped IPv6 address is its IPv4 address). A zone
// ("%eth0"), brackets, a port or anything else is refused: the pattern
// "*.example.com" would otherwise match "::ffff:127.0.0.1%a.example.com",
// which the resolver dials as 127.0.0.1. An internationalized name
// (bücher.de) is its ASCII form (xn--bcher-kva.de), as the resolver looks
// it up: a grant could not name it, and an MCP server at it required a
// Network grant no caller could hold but Network(*).
func NetworkHost(host string) (string, error) {
	h := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(host)), ".")
	if h == "" {
		return "", fmt.Errorf("host %q is empty", host)
	}
	if !isASCII(h) {
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", fmt.Errorf("host %q is neither a DNS name nor an IP address (an internationalized name that does not convert to its ASCII form: %v)", host, err)
		}
		h = strings.ToLower(a)
	}
	if ip := net.ParseIP(h); ip != nil {
		return ip.String(), nil
	}
	for _, c := range h {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		default:
			return "", fmt.Errorf("host %q is neither a DNS name nor an IP address (character %q)", host, c)
		}
	}
	return h, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
