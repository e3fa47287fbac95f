package registry

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

func searchFixture(t testing.TB) *Registry {
	r := New()
	pdf := &ProviderRecord{Info: abi.ProviderInfo{ID: "org.example.pdf", Name: "PDF Kit", Runtime: abi.RuntimeWASM}, Trust: abi.Verified}
	js := &ProviderRecord{Info: abi.ProviderInfo{ID: "org.example.text", Name: "Text", Runtime: abi.RuntimeJS}, Trust: abi.Untrusted}
	sys := &ProviderRecord{Info: abi.ProviderInfo{ID: "org.aios.system", Runtime: abi.RuntimeNative}, Trust: abi.System}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(r.Register(pdf, []abi.ToolDef{
		{Name: "pdf-extract", Description: "Extract text from a PDF document", Tags: []string{"pdf", "text"},
			CapabilityRequired: []string{"ReadSpace(docs)"}},
		{Name: "pdf-merge", Description: "Merge several documents", Tags: []string{"pdf"}, Examples: []string{"merge a.pdf and b.pdf"}},
		{Name: "pdf-old", Version: "1.0.0", Description: "Old converter", Deprecated: true},
		{Name: "pdf-old", Version: "0.9.0", Description: "Old converter"},
	}))
	must(r.Register(js, []abi.ToolDef{
		{Name: "summarize", Description: "Summarize text with a model", Tags: []string{"nlp"},
			CapabilityRequired: []string{"Inference"}},
		{Name: "word-count", Description: "Count words in text, including PDF output"},
		{Name: "fetch", Description: "Fetch a URL", CapabilityRequired: []string{"Network(*.example.com)"}},
	}))
	must(r.Register(sys, []abi.ToolDef{
		{Name: "text", Description: "exact name match"},
		{Name: "analyze-complexity", Description: "Cyclomatic complexity of Go source", CapabilityRequired: []string{"ReadSpace(source)"}},
	}))
	return r
}

func names(es []*Entry) string {
	var s []string
	for _, e := range es {
		s = append(s, e.Def.Name)
	}
	return strings.Join(s, " ")
}

func TestSearch(t *testing.T) {
	r := searchFixture(t)
	trust := func(l abi.TrustLevel) *abi.TrustLevel { return &l }
	tests := []struct {
		name string
		q    Query
		want string
	}{
		{"name beats tag beats description", Query{Text: "text"}, "text pdf-extract fetch summarize word-count"},
		{"case-insensitive", Query{Text: "PDF"}, "pdf-extract pdf-merge pdf-old word-count"},
		{"all tokens must match", Query{Text: "pdf text"}, "pdf-extract word-count"},
		{"examples", Query{Text: "b.pdf"}, "pdf-merge"},
		{"provider name", Query{Text: "kit"}, "pdf-extract pdf-merge pdf-old"},
		{"provider id", Query{Text: "org.aios.system"}, "analyze-complexity text"},
		{"no match", Query{Text: "zebra"}, ""},
		{"runtime (fetch matches the provider id)", Query{Text: "text", Runtime: "JS"}, "fetch summarize word-count"},
		{"trust", Query{Trust: trust(abi.Verified)}, "analyze-complexity pdf-extract pdf-merge pdf-old text"},
		{"capability kind", Query{Capability: "ReadSpace(*)"}, "analyze-complexity pdf-extract"},
		{"capability arg", Query{Capability: "ReadSpace(source)"}, "analyze-complexity"},
		{"capability network", Query{Capability: "Network(*)"}, "fetch"},
		{"capability no arg", Query{Capability: "Inference"}, "summarize"},
		{"bad capability", Query{Capability: "Read Space("}, ""},
		{"limit", Query{Limit: 2}, "analyze-complexity fetch"},
		{"empty lists all", Query{}, "analyze-complexity fetch pdf-extract pdf-merge pdf-old summarize text word-count"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := names(r.Search(tc.q)); got != tc.want {
				t.Errorf("Search(%+v) = %q, want %q", tc.q, got, tc.want)
			}
		})
	}
}

func TestSearchVersions(t *testing.T) {
	r := searchFixture(t)
	got := r.Search(Query{Text: "pdf-old"})
	if len(got) != 1 || got[0].Def.Version != "0.9.0" {
		t.Errorf("default search picks %v, want the non-deprecated 0.9.0", got)
	}
	got = r.Search(Query{Text: "pdf-old", AllVersions: true})
	if len(got) != 2 || got[0].Def.Version != "1.0.0" || got[1].Def.Version != "0.9.0" {
		t.Errorf("AllVersions = %v, want newest first", got)
	}
}

func TestSearchLimits(t *testing.T) {
	r := New()
	var defs []abi.ToolDef
	for i := range 1200 {
		defs = append(defs, abi.ToolDef{Name: fmt.Sprintf("t%04d", i)})
	}
	if err := r.Register(prov("org.many.p"), defs); err != nil {
		t.Fatal(err)
	}
	if n := len(r.Search(Query{})); n != DefaultSearchLimit {
		t.Errorf("default limit gave %d", n)
	}
	if n := len(r.Search(Query{Limit: 5000})); n != MaxSearchLimit {
		t.Errorf("limit 5000 gave %d, want the cap %d", n, MaxSearchLimit)
	}
	a, b := r.Search(Query{Text: "t0", Limit: 50}), r.Search(Query{Text: "t0", Limit: 50})
	if names(a) != names(b) || !strings.HasPrefix(names(a), "t0000 t0001") {
		t.Errorf("order not stable: %s", names(a))
	}
}

// synthetic10k registers 10,000 tools in 100 providers with realistic text.
func synthetic10k(tb testing.TB) *Registry {
	words := []string{"pdf", "image", "text", "audio", "video", "json", "csv", "archive", "mail", "calendar",
		"search", "translate", "summarize", "convert", "resize", "extract", "merge", "split", "index", "query"}
	r := New()
	for p := range 100 {
		var defs []abi.ToolDef
		for i := range 100 {
			n := p*100 + i
			w1, w2, w3 := words[n%len(words)], words[(n/20)%len(words)], words[(n/400)%len(words)]
			defs = append(defs, abi.ToolDef{
				Name:        fmt.Sprintf("%s-%s-%d", w1, w2, n),
				Description: fmt.Sprintf("%s the %s of a %s document, tool number %d, written for benchmarks", strings.ToUpper(w2[:1])+w2[1:], w1, w3, n),
				Tags:        []string{w1, w3},
				Examples:    []string{fmt.Sprintf("%s my %s", w2, w1)},
			})
		}
		if err := r.Register(&ProviderRecord{Info: abi.ProviderInfo{ID: fmt.Sprintf("org.bench.p%d", p), Runtime: abi.RuntimeWASM}}, defs); err != nil {
			tb.Fatal(err)
		}
	}
	return r
}

func TestSynthetic10k(t *testing.T) {
	r := synthetic10k(t)
	if n := len(r.Tools()); n != 10000 {
		t.Fatalf("%d tools", n)
	}
	got := r.Search(Query{Text: "pdf merge"})
	if len(got) == 0 || !strings.Contains(got[0].Def.Name, "pdf") {
		t.Errorf("pdf merge: %s", names(got))
	}
}

func BenchmarkRegistrySearch10k(b *testing.B) {
	r := synthetic10k(b)
	queries := []string{"pdf merge", "summarize", "audio convert", "calendar"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		_ = r.Search(Query{Text: queries[i%len(queries)]})
		i++
	}
}

func BenchmarkResolve(b *testing.B) {
	r := synthetic10k(b)
	name := r.Tools()[5000].Def.Name
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Resolve(name, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolveConstraint(b *testing.B) {
	r := resolveFixture(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Resolve("echo", "^1.2"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReplace(b *testing.B) {
	r := synthetic10k(b)
	defs := []abi.ToolDef{{Name: "hot", Description: "reloaded"}}
	p := prov("org.bench.hot")
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Replace(p, defs); err != nil {
			b.Fatal(err)
		}
	}
}
