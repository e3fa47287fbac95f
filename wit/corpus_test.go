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
		if e.IsDir() && n != "parse-fail" || strings.HasSuffix(n, ".wit") {
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
	t.Logf("skipped simple-wasm-text.wat: a WebAssembly text file, not WIT")
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

// checkCorpusJSON compares a few structural facts with wasm-tools' NAME.wit.json:
// the root package's interface and world names and function counts.
func checkCorpusJSON(t *testing.T, input string, res *Resolved) {
	data, err := os.ReadFile(strings.TrimSuffix(input, ".wit") + ".wit.json")
	if err != nil {
		return
	}
	var doc struct {
		Interfaces []struct {
			Name      *string        `json:"name"`
			Functions map[string]any `json:"functions"`
			Package   *int           `json:"package"`
		} `json:"interfaces"`
		Worlds []struct {
			Name    string         `json:"name"`
			Imports map[string]any `json:"imports"`
			Exports map[string]any `json:"exports"`
			Package int            `json:"package"`
		} `json:"worlds"`
		Packages []struct {
			Name       string         `json:"name"`
			Interfaces map[string]int `json:"interfaces"`
			Worlds     map[string]int `json:"worlds"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Errorf("%s: bad json: %v", input, err)
		return
	}
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
			jw := doc.Worlds[idx]
			nimp := len(w.Imports)
			for _, it := range w.Imports {
				if it.Type != nil && it.Type.Type.Resource != nil && it.Type.From == nil && !it.Type.Alias {
					nimp += len(it.Type.Type.Resource.Methods)
				}
			}
			if nimp != len(jw.Imports) || len(w.Exports) != len(jw.Exports) {
				var gi, ge []string
				for _, it := range w.Imports {
					gi = append(gi, it.Name)
				}
				for _, it := range w.Exports {
					ge = append(ge, it.Name)
				}
				var wi, we []string
				for k := range jw.Imports {
					wi = append(wi, k)
				}
				for k := range jw.Exports {
					we = append(we, k)
				}
				sort.Strings(wi)
				sort.Strings(we)
				t.Errorf("%s: world %s imports/exports %v / %v, wasm-tools %v / %v", filepath.Base(input), name, gi, ge, wi, we)
			}
		}
	}
}
