package registry

import (
	"slices"
	"strings"

	"github.com/aios-host/aios-host/abi"
)

// Search limits.
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 1000
)

// Query selects tools for Search.
type Query struct {
	// Text is split into white-space separated tokens, matched
	// case-insensitively as substrings; every token must match somewhere
	// (name, tags, description, examples, provider name or id). Empty
	// matches every tool.
	Text string
	// Runtime keeps tools whose provider runs on this runtime ("wasm", "js",
	// ...; case-insensitive). Empty keeps all.
	Runtime string
	// Capability keeps tools that require a capability covered by this one:
	// "ReadSpace(*)" finds every tool that reads some space,
	// "Network(*.example.com)" those that need a host of example.com,
	// "Inference" those that need inference. A string that does not parse
	// as a capability matches nothing.
	Capability string
	// Trust, when set, keeps tools whose provider is at least this trusted.
	Trust *abi.TrustLevel
	// Limit caps the result: 0 means DefaultSearchLimit; at most
	// MaxSearchLimit.
	Limit int
	// AllVersions returns every matching version; by default each tool
	// name appears once, as its best matching version (the default version
	// when it matches, else the newest matching).
	AllVersions bool
}

// Scores of a token found in each field; the leftmost occurrence in the
// precomputed text is in the best field, so one search per token suffices.
const (
	scoreNameExact  = 100
	scoreNamePrefix = 60
	scoreName       = 40
	scoreTag        = 20
	scoreText       = 10
)

type hit struct {
	e     *Entry
	score int
}

// Search returns the tools matching q, best first: by score (a token in the
// name counts more than in tags, which count more than in the description,
// examples or provider), then by name, then newest version first.
func (r *Registry) Search(q Query) []*Entry {
	s := r.snap.Load()
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)

	// Repeated tokens count once. They are told apart with a map: a scan
	// of the tokens kept for each one was quadratic, and a query of 50 000
	// distinct words took 5 s before any tool was looked at.
	var tokens []string
	seen := map[string]bool{}
	for _, t := range strings.Fields(strings.ToLower(q.Text)) {
		t = strings.ReplaceAll(t, "\x00", "")
		if t != "" && !seen[t] {
			seen[t] = true
			tokens = append(tokens, t)
		}
	}
	var all sig
	for _, t := range tokens {
		ts := signature(t)
		for k := range all {
			all[k] |= ts[k]
		}
	}
	tq := textQuery{tokens: tokens, all: all}
	var capFilter *abi.Capability
	if q.Capability != "" {
		c, err := abi.ParseCapability(q.Capability)
		if err != nil {
			return nil
		}
		capFilter = &c
	}

	var hits []hit
	for c, sigs := range s.setSigs.chunks {
		sets := s.sets.chunks[c]
		for i := range sigs {
			if !sigs[i].contains(&tq.all) {
				continue // no version can match the text (contiguous scan, no pointer chasing)
			}
			set := sets[i]
			if q.AllVersions {
				for _, e := range set.versions {
					if sc, ok := match(e, &tq, &q, capFilter); ok {
						hits = append(hits, hit{e, sc})
					}
				}
				continue
			}
			def := set.def
			if sc, ok := match(def, &tq, &q, capFilter); ok {
				hits = append(hits, hit{def, sc})
				continue
			}
			var best *Entry
			bestScore := 0
			for k := len(set.versions) - 1; k >= 0; k-- {
				e := set.versions[k]
				if e == def {
					continue
				}
				sc, ok := match(e, &tq, &q, capFilter)
				if !ok {
					continue
				}
				if best == nil || (best.Def.Deprecated && !e.Def.Deprecated) {
					best, bestScore = e, sc
				}
			}
			if best != nil {
				hits = append(hits, hit{best, bestScore})
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int {
		if a.score != b.score {
			return b.score - a.score
		}
		if c := strings.Compare(a.e.Def.Name, b.e.Def.Name); c != 0 {
			return c
		}
		return b.e.Version.Compare(a.e.Version)
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	out := make([]*Entry, len(hits))
	for i, h := range hits {
		out[i] = h.e
	}
	return out
}

type textQuery struct {
	tokens []string
	all    sig // union of the tokens' signatures
}

// match applies the filters and scores the text tokens.
func match(e *Entry, tq *textQuery, q *Query, capFilter *abi.Capability) (int, bool) {
	if !e.sig.contains(&tq.all) {
		return 0, false
	}
	p := e.Provider
	if q.Runtime != "" && !strings.EqualFold(p.Info.Runtime, q.Runtime) {
		return 0, false
	}
	if q.Trust != nil && p.Trust < *q.Trust {
		return 0, false
	}
	if capFilter != nil {
		found := false
		for _, c := range e.Caps {
			if capFilter.Covers(c) {
				found = true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
	score := 0
	for _, t := range tq.tokens {
		k := strings.Index(e.hay, t)
		switch {
		case k < 0:
			if strings.Contains(e.prov, t) {
				score += scoreText
				continue
			}
			return 0, false
		case k < e.nEnd:
			switch {
			case len(t) == e.nEnd:
				score += scoreNameExact
			case k == 0:
				score += scoreNamePrefix
			default:
				score += scoreName
			}
		case k < e.tEnd:
			score += scoreTag
		default:
			score += scoreText
		}
	}
	return score, true
}
