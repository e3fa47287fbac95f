package wit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// corpusDir is findCorpus for tests: it fails t when there is no
// repository root and skips it when the corpus is not there.
func corpusDir(t testing.TB) string {
	t.Helper()
	c, err := findCorpus()
	if c == "" {
		t.Fatal(err)
	}
	if err != nil {
		t.Skipf("WIT corpus not present at %s", c)
	}
	return c
}

// corpusOpts are the options wasm-tools' UI tests use: feature `active` on.
var corpusOpts = Options{Features: []string{"active"}}

// corpusKnownFailures lists valid inputs this parser does not accept, with the reason.
var corpusKnownFailures = map[string]string{}

func corpusInputs(t testing.TB, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		n := e.Name()
		// A .wat input is a package in its encoding written as WebAssembly
		// text, which Parse decodes (simple-wasm-text.wat).
		if e.IsDir() && n != "parse-fail" || strings.HasSuffix(n, ".wit") || strings.HasSuffix(n, ".wat") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	sort.Strings(out)
	return out
}

func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	valid := corpusInputs(t, dir)
	okValid, knownFail := 0, 0
	for _, p := range valid {
		name := filepath.Base(p)
		res, err := Parse(p, corpusOpts)
		if err != nil {
			if reason, ok := corpusKnownFailures[name]; ok {
				knownFail++
				t.Logf("known failure %s: %s (%v)", name, reason, err)
				continue
			}
			t.Errorf("valid %s: %v", name, err)
			continue
		}
		okValid++
		checkCorpusJSON(t, p, res)
	}
	fails := corpusInputs(t, filepath.Join(dir, "parse-fail"))
	okFail := 0
	for _, p := range fails {
		_, err := Parse(p, corpusOpts)
		if err == nil {
			t.Errorf("parse-fail %s: accepted", filepath.Base(p))
			continue
		}
		okFail++
	}
	line := "WIT corpus: valid " + itoa(okValid) + "/" + itoa(len(valid)) + ", parse-fail " + itoa(okFail) + "/" + itoa(len(fails))
	t.Log(line)
	os.Stdout.WriteString(line + "\n")
	if knownFail > 0 {
		t.Logf("%d known failure(s), listed in docs/wit.md", knownFail)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// checkCorpusJSON compares the resolution with wasm-tools' NAME.wit.json:
// names and function counts (checkCorpusDoc) and every type, function,
// world item, stability and doc comment (checkCorpusDeep).
func checkCorpusJSON(t *testing.T, input string, res *Resolved) {
	data, err := os.ReadFile(strings.TrimSuffix(strings.TrimSuffix(input, ".wit"), ".wat") + ".wit.json")
	if err != nil {
		return
	}
	var doc corpusDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Errorf("%s: bad json: %v", input, err)
		return
	}
	checkCorpusDoc(t, input, res, &doc)
	checkCorpusDeep(t, input, res, data)
}

// corpusDoc is the part of wasm-tools' NAME.wit.json that TestCorpus reads.
type corpusDoc struct {
	Interfaces []struct {
		Name      *string        `json:"name"`
		Functions map[string]any `json:"functions"`
		Package   *int           `json:"package"`
	} `json:"interfaces"`
	Worlds []struct {
		Name    string                     `json:"name"`
		Imports map[string]json.RawMessage `json:"imports"`
		Exports map[string]json.RawMessage `json:"exports"`
		Package int                        `json:"package"`
	} `json:"worlds"`
	Packages []struct {
		Name       string         `json:"name"`
		Interfaces map[string]int `json:"interfaces"`
		Worlds     map[string]int `json:"worlds"`
	} `json:"packages"`
}

// corpusIfaceID is the ID of interface idx of doc, `ns:pkg/name[@version]`.
func corpusIfaceID(doc *corpusDoc, idx int) string {
	if idx < 0 || idx >= len(doc.Interfaces) {
		return "?"
	}
	ji := doc.Interfaces[idx]
	if ji.Name == nil || ji.Package == nil || *ji.Package >= len(doc.Packages) {
		return "?"
	}
	pkg, ver, versioned := strings.Cut(doc.Packages[*ji.Package].Name, "@")
	id := pkg + "/" + *ji.Name
	if versioned {
		id += "@" + ver
	}
	return id
}

// checkCorpusDoc compares res with doc.
func checkCorpusDoc(t *testing.T, input string, res *Resolved, doc *corpusDoc) {
	for _, jp := range doc.Packages {
		p := res.Package(jp.Name)
		if p == nil {
			t.Errorf("%s: package %s missing", filepath.Base(input), jp.Name)
			continue
		}
		if len(p.Interfaces) != len(jp.Interfaces) || len(p.Worlds) != len(jp.Worlds) {
			t.Errorf("%s: package %s has %d interfaces/%d worlds, wasm-tools %d/%d", filepath.Base(input), jp.Name, len(p.Interfaces), len(p.Worlds), len(jp.Interfaces), len(jp.Worlds))
			continue
		}
		for name, idx := range jp.Interfaces {
			i := p.Interface(name)
			if i == nil {
				t.Errorf("%s: interface %s missing", filepath.Base(input), name)
				continue
			}
			want := len(doc.Interfaces[idx].Functions)
			got := len(i.Funcs)
			for _, td := range i.Types {
				if td.Type.Resource != nil && td.From == nil && !td.Alias {
					got += len(td.Type.Resource.Methods)
				}
			}
			if got != want {
				t.Errorf("%s: interface %s has %d functions, wasm-tools %d", filepath.Base(input), name, got, want)
			}
		}
		for name, idx := range jp.Worlds {
			w := p.World(name)
			if w == nil {
				t.Errorf("%s: world %s missing", filepath.Base(input), name)
				continue
			}
			// The names of imports and exports, a resource's members
			// included (wasm-tools lists them as world functions), and
			// interfaces named by path as their IDs.
			jw := doc.Worlds[idx]
			names := func(items []*WorldItem) []string {
				var out []string
				for _, it := range items {
					out = append(out, it.Name)
					if it.Type != nil && it.Type.Type.Resource != nil && it.Type.From == nil && !it.Type.Alias {
						for _, m := range it.Type.Type.Resource.Methods {
							out = append(out, m.Name)
						}
					}
				}
				sort.Strings(out)
				return out
			}
			jnames := func(m map[string]json.RawMessage) []string {
				var out []string
				for k, raw := range m {
					if strings.HasPrefix(k, "interface-") {
						var x struct {
							Interface struct {
								ID int `json:"id"`
							} `json:"interface"`
						}
						if err := json.Unmarshal(raw, &x); err == nil {
							k = corpusIfaceID(doc, x.Interface.ID)
						}
					}
					out = append(out, k)
				}
				sort.Strings(out)
				return out
			}
			gi, ge, wi, we := names(w.Imports), names(w.Exports), jnames(jw.Imports), jnames(jw.Exports)
			if strings.Join(gi, " ") != strings.Join(wi, " ") || strings.Join(ge, " ") != strings.Join(we, " ") {
				t.Errorf("%s: world %s imports/exports %v / %v, wasm-tools %v / %v", filepath.Base(input), name, gi, ge, wi, we)
			}
		}
	}
}
