package js

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf16"

	"github.com/evanw/esbuild/pkg/api"
	"github.com/tailscale/hujson"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/internal/editdist"
)

//go:embed sdk_module.js
var sdkModuleSource string

// Decorator modes a file can ask for with a pragma comment.
const (
	decoratorsDefault      = ""             // esbuild's choice: tsconfig.json if any, else standard
	decoratorsStandard     = "standard"     // TC39 decorators
	decoratorsExperimental = "experimental" // TypeScript experimentalDecorators
)

// decoratorPragma finds "// @aios-decorators experimental" (or standard) on
// a line of its own.
var decoratorPragma = regexp.MustCompile(`(?m)^[ \t]*//[ \t]*@aios-decorators[ \t:]+(experimental|standard)\b`)

// bundled is the output of bundling one provider file.
type bundled struct {
	// Code is an IIFE script with an inline source map.
	Code string
	// Name is the script name given to goja; the source map's sources are
	// resolved relative to it, so stacks show the original file names.
	Name string
	// Decorators is the decorator mode used.
	Decorators string
}

// bundleFile transpiles and bundles the provider at path (a .js or .ts file,
// or a folder holding index.ts or index.js) into one script goja can run.
// Imports are limited to 'aios-sdk' and relative files inside the provider's
// folder. Errors carry the original file:line:col.
//
// pins, when not nil, is the code of a signed provider (abi.Source.Pinned):
// every file the bundle reads (the entry, its imports, a tsconfig.json)
// must be pinned there with the digest of the bytes bundled.
func bundleFile(path string, pins map[string]string) (*bundled, error) {
	return bundleWith(path, pins, false)
}

// bundleWith is bundleFile; alone refuses every import but 'aios-sdk' (a
// file at the top of a plugin folder, whose folder holds other providers'
// files).
func bundleWith(path string, pins map[string]string, alone bool) (*bundled, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	entry, err := entryFile(abs)
	if err != nil {
		return nil, err
	}
	// esbuild resolves imports to real paths: the folder a relative import
	// must stay in is the entry's real folder (a plugin folder reached
	// through a symbolic link refused every relative import).
	if r, err := filepath.EvalSymlinks(entry); err == nil {
		entry = r
	}
	src, err := os.ReadFile(entry)
	if err != nil {
		return nil, fmt.Errorf("read provider: %w", err)
	}
	dir := filepath.Dir(entry)
	mode := decoratorsDefault
	// A byte order mark (Windows editors save UTF-8 with one) is not part
	// of the first line: "\uFEFF// @aios-decorators experimental" was
	// ignored (TestDecoratorPragmaAfterBOM).
	if m := decoratorPragma.FindSubmatch(bytes.TrimPrefix(src, []byte("\uFEFF"))); m != nil {
		mode = string(m[1])
	}
	loaded := &fileSet{}
	opts := api.BuildOptions{
		EntryPoints:    []string{entry},
		Bundle:         true,
		Write:          false,
		Format:         api.FormatIIFE,
		Target:         api.ES2017,
		Platform:       api.PlatformNeutral,
		Sourcemap:      api.SourceMapInline,
		SourcesContent: api.SourcesContentExclude,
		Charset:        api.CharsetUTF8,
		TreeShaking:    api.TreeShakingFalse,
		LegalComments:  api.LegalCommentsNone,
		LogLevel:       api.LogLevelSilent,
		AbsWorkingDir:  dir,
		Outdir:         dir,
		Plugins:        []api.Plugin{sdkPlugin(dir, alone, loaded.add)},
		// goja cannot parse import(): one of a literal path is bundled
		// either way, but import(m) of a computed name was left as it was
		// and the whole file failed "goja cannot compile the bundle:
		// SyntaxError: f.js.bundle.js: … Unexpected reserved word". esbuild
		// lowers it to a require that fails when it runs, naming the name
		// and the provider's line (TestDynamicImportOfComputedName).
		Supported: map[string]bool{"dynamic-import": false},
	}
	if ext := filepath.Ext(entry); ext != strings.ToLower(ext) {
		// The host takes Words.JS as a .js file (extensions match in any
		// case); esbuild knew no loader for ".JS".
		switch strings.ToLower(ext) {
		case ".js", ".mjs":
			opts.Loader = map[string]api.Loader{ext: api.LoaderJS}
		case ".ts", ".mts":
			opts.Loader = map[string]api.Loader{ext: api.LoaderTS}
		}
	}
	if pins != nil {
		// esbuild names files by their real path: a plugin folder reached
		// through a symbolic link has its pins under both names.
		real := make(map[string]string, len(pins)*2)
		for p, sum := range pins {
			real[p] = sum
			if r, err := filepath.EvalSymlinks(p); err == nil {
				real[r] = sum
			}
		}
		pins = real
		opts.Plugins = append(opts.Plugins, pinnedPlugin(pins))
		// esbuild would read the nearest tsconfig.json itself, from this
		// folder or any above it: only a pinned one counts.
		opts.TsconfigRaw = "{}"
		ts := filepath.Join(dir, "tsconfig.json")
		if _, err := os.Lstat(ts); err == nil {
			raw, err := readPinned(ts, pins)
			if err != nil {
				return nil, err
			}
			if tsconfigExtends.Match(raw) {
				// esbuild would read the extended file itself, unchecked.
				return nil, fmt.Errorf("%s: a signed provider's tsconfig.json may not use \"extends\" (the file it names is not pinned); put the options in it", ts)
			}
			opts.TsconfigRaw = string(raw)
		}
	}
	if mode != decoratorsDefault {
		// The pragma chooses the decorators only: a tsconfig handed to
		// esbuild replaces every tsconfig.json it would read, and one of
		// that option alone dropped the others ("useDefineForClassFields":
		// false, and class fields stopped calling a base class's setter:
		// TestDecoratorPragmaKeepsTsconfig).
		raw, err := decoratorTsconfig(dir, opts.TsconfigRaw, pins != nil, mode == decoratorsExperimental)
		if err != nil {
			return nil, err
		}
		opts.TsconfigRaw = raw
	}
	res := api.Build(opts)
	if len(res.Errors) > 0 {
		return nil, buildError(dir, res.Errors)
	}
	if err := modulePragmas(entry, mode, loaded.list(), pins); err != nil {
		return nil, err
	}
	if len(res.OutputFiles) != 1 {
		names := make([]string, len(res.OutputFiles))
		for i, f := range res.OutputFiles {
			names[i] = filepath.Base(f.Path)
		}
		return nil, fmt.Errorf("%s: esbuild produced %d output files (%s), want 1: an import of a file esbuild writes apart from the bundle; a provider imports JS, TS, JSON and .txt files", entry, len(res.OutputFiles), strings.Join(names, ", "))
	}
	base := filepath.Base(entry)
	return &bundled{
		Code:       oneBasedColumns(string(res.OutputFiles[0].Contents)),
		Name:       base + ".bundle.js",
		Decorators: mode,
	}, nil
}

// fileSet is the set of files a bundle loaded (esbuild may load them on
// several goroutines).
type fileSet struct {
	mu    sync.Mutex
	paths []string
}

func (f *fileSet) add(p string) {
	f.mu.Lock()
	f.paths = append(f.paths, p)
	f.mu.Unlock()
}

func (f *fileSet) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.paths)
}

// modulePragmas checks the decorator lines of the modules a provider's
// bundle loaded besides its entry file: esbuild compiles the whole bundle
// with one setting, the entry's (mode), so a module's line that is not the
// entry's was ignored without a word and its decorators compiled the other
// way (TestDecoratorPragmaInModuleNotIgnored). Such a line fails the load
// at its file and line.
func modulePragmas(entry, mode string, files []string, pins map[string]string) error {
	slices.Sort(files)
	for _, f := range files {
		if f == entry || pinnedLoaders[strings.ToLower(filepath.Ext(f))] == api.LoaderJSON || pinnedLoaders[strings.ToLower(filepath.Ext(f))] == api.LoaderText {
			continue
		}
		var src []byte
		var err error
		if pins != nil {
			src, err = readPinned(f, pins)
		} else {
			src, err = os.ReadFile(f)
		}
		if err != nil {
			continue // it was bundled: esbuild read it a moment ago
		}
		src = bytes.TrimPrefix(src, []byte("\uFEFF"))
		m := decoratorPragma.FindSubmatchIndex(src)
		if m == nil || string(src[m[2]:m[3]]) == mode {
			continue
		}
		line := 1 + bytes.Count(src[:m[0]], []byte("\n"))
		text := strings.TrimSpace(string(src[m[0]:m[1]]))
		entryLine := "it has no such line"
		if mode != decoratorsDefault {
			entryLine = "// @aios-decorators " + mode
		}
		return &SyntaxError{Msg: fmt.Sprintf("%s:%d:1: %s: the module's line is not the entry's (%s: %s): the provider's entry file decides for all its files, which esbuild compiles with one decorator setting; put the line in %s",
			f, line, text, filepath.Base(entry), entryLine, filepath.Base(entry))}
	}
	return nil
}

// decoratorTsconfig is the tsconfig esbuild is given for a file with a
// decorator pragma: the one it would use otherwise with
// compilerOptions.experimentalDecorators set to experimental. pinned says
// base is the whole tsconfig of a signed provider ("{}" or its pinned
// tsconfig.json, which has no "extends"); otherwise it is the nearest
// tsconfig.json or jsconfig.json at or above dir, as esbuild finds it,
// which the answer extends by its absolute path.
func decoratorTsconfig(dir, base string, pinned, experimental bool) (string, error) {
	if !pinned {
		m := map[string]any{"compilerOptions": map[string]any{"experimentalDecorators": experimental}}
		if p := nearestTsconfig(dir); p != "" {
			m["extends"] = p
		}
		raw, err := json.Marshal(m)
		return string(raw), err
	}
	var m map[string]any
	std, err := jsoncToJSON(base)
	if err == nil {
		d := json.NewDecoder(strings.NewReader(std))
		d.UseNumber()
		err = d.Decode(&m)
	}
	if err != nil || m == nil {
		return "", fmt.Errorf("%s: cannot read it to set experimentalDecorators for the // @aios-decorators line: %v", filepath.Join(dir, "tsconfig.json"), err)
	}
	co, _ := m["compilerOptions"].(map[string]any)
	if co == nil {
		co = map[string]any{}
	}
	co["experimentalDecorators"] = experimental
	m["compilerOptions"] = co
	raw, err := json.Marshal(m)
	return string(raw), err
}

// nearestTsconfig is the tsconfig.json (else jsconfig.json) esbuild would
// read for a file in dir: the first found in dir or above it, or "".
func nearestTsconfig(dir string) string {
	for {
		for _, n := range []string{"tsconfig.json", "jsconfig.json"} {
			p := filepath.Join(dir, n)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p
			}
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// jsoncToJSON turns a tsconfig's text (JSON with comments and trailing
// commas, as tsc and esbuild read it) into JSON (hujson.Standardize:
// comments and trailing commas become spaces), a byte order mark dropped.
func jsoncToJSON(s string) (string, error) {
	b, err := hujson.Standardize([]byte(strings.TrimPrefix(s, "\uFEFF")))
	return string(b), err
}

// entryFile returns path itself for a file, or the index file of a folder.
func entryFile(abs string) (string, error) {
	st, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("provider %s: %w", abs, err)
	}
	if !st.IsDir() {
		return abs, nil
	}
	for _, n := range abi.JSFolderEntries {
		p := filepath.Join(abs, n)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("provider folder %s has no index.ts, index.mts, index.js or index.mjs", abs)
}

// buildHint says what to do instead of what esbuild refuses for the
// bundle's target: its "Top-level await is not available in the configured
// target environment ("es2017")" spoke of a setting the author has none of.
func buildHint(text string) string {
	if strings.HasPrefix(text, "Top-level await is not available") { // also for a top-level for await
		return "; a JS tool's top-level code runs once at load, synchronously (ctx and its host calls exist only in a call): await in the handler, or keep a promise at the top (const ready = init();) and await it there (docs/js.md)"
	}
	return ""
}

// sdkExports are the names the module 'aios-sdk' exports (sdk_module.js),
// and sdkTypes the types aios-sdk.d.ts declares in it, which a .js file
// cannot import.
var (
	sdkExports      = []string{"Agent", "tool", "Capability", "registerTool", "provider", "ToolError", "default"}
	sdkTypes        = []string{"AgentContext", "ToolDefinition", "AgentOptions"}
	sdkNoExportText = regexp.MustCompile(`^No matching export in "aios-sdk:aios-sdk" for import "(.*)"$`)
)

// sdkExportText rewrites esbuild's words for an import of a name 'aios-sdk'
// does not export, which showed the plugin's namespace ("aios-sdk:aios-sdk")
// as if it were a file and nothing of what the module exports
// (TestSDKImportOfMissingExportNamed); other messages are returned as they are.
func sdkExportText(text string) string {
	m := sdkNoExportText.FindStringSubmatch(text)
	if m == nil {
		return text
	}
	name := m[1]
	var why string
	switch {
	case slices.Contains(sdkTypes, name):
		why = " (" + name + " is a type of aios-sdk.d.ts: import it in a .ts file, with import type)"
	default:
		if near := editdist.Closest(name, sdkExports, editdist.Limit(name)); near != "" && near != "default" {
			why = " (did you mean " + near + "?)"
		}
	}
	return fmt.Sprintf("'aios-sdk' has no export %q%s; it exports %s and a default (the aios object)", name, why,
		strings.Join(sdkExports[:len(sdkExports)-1], ", "))
}

// buildError renders esbuild's messages as "file:line:col: text" lines with
// the original (pre-transpile) position; esbuild columns are 0-based.
func buildError(dir string, msgs []api.Message) error {
	var b strings.Builder
	for i, m := range msgs {
		if i == 5 {
			fmt.Fprintf(&b, "\n... and %d more errors", len(msgs)-i)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		if l := m.Location; l != nil {
			file := l.File
			if l.Namespace == "file" || l.Namespace == "" {
				if !filepath.IsAbs(file) {
					file = filepath.Join(dir, file)
				}
			}
			fmt.Fprintf(&b, "%s:%d:%d: %s%s", file, l.Line, charColumn(l.LineText, l.Column)+1, sdkExportText(m.Text), buildHint(m.Text))
			if t := strings.TrimSpace(l.LineText); t != "" && len(t) < 200 {
				fmt.Fprintf(&b, "\n    %s", t)
			}
		} else {
			b.WriteString(m.Text)
		}
	}
	return &SyntaxError{Msg: b.String()}
}

// charColumn is byte column col of line (esbuild's, 0-based) in UTF-16
// code units, as editors, tsc and this runtime's errors at run time (the
// source map's columns) count: a line holding "日本語" before the error put
// its column six further right (TestSyntaxErrorColumnCountsCharacters).
// A column past the line's text is left as it is.
func charColumn(line string, col int) int {
	if col < 0 || col > len(line) {
		return col
	}
	n := 0
	for _, r := range line[:col] {
		n += utf16.RuneLen(r)
	}
	return n
}

// SyntaxError is a load-time error in a provider's source, with the original
// file:line:col of each problem.
type SyntaxError struct{ Msg string }

func (e *SyntaxError) Error() string { return e.Msg }

// sdkPlugin resolves 'aios-sdk' to the SDK shim and refuses every other
// bare import, and relative imports that leave root.
func sdkPlugin(root string, alone bool, loaded func(path string)) api.Plugin {
	return api.Plugin{
		Name: "aios-sdk",
		Setup: func(b api.PluginBuild) {
			b.OnResolve(api.OnResolveOptions{Filter: `.*`}, func(a api.OnResolveArgs) (api.OnResolveResult, error) {
				if a.Kind == api.ResolveEntryPoint {
					return api.OnResolveResult{}, nil
				}
				if a.Path == "aios-sdk" {
					return api.OnResolveResult{Path: "aios-sdk", Namespace: "aios-sdk"}, nil
				}
				if strings.HasPrefix(a.Path, "./") || strings.HasPrefix(a.Path, "../") || filepath.IsAbs(a.Path) {
					if strings.EqualFold(filepath.Ext(a.Path), ".css") {
						// esbuild writes imported CSS to a file of its own:
						// the load failed "esbuild produced 2 output files,
						// want 1", naming no import.
						return api.OnResolveResult{}, fmt.Errorf("cannot import %q: a JS tool has no use for CSS (esbuild would write it apart from the bundle); a provider imports JS, TS, JSON and .txt files", a.Path)
					}
					if alone {
						return api.OnResolveResult{}, fmt.Errorf("import %q leaves the provider's folder: a file at the top of a plugin folder is a provider of its own and may import only 'aios-sdk' (the plugin folder holds other providers); put it and its modules in a folder of their own (plugins/NAME/index.ts) to import local files", a.Path)
					}
					p := a.Path
					if !filepath.IsAbs(p) {
						p = filepath.Join(a.ResolveDir, p)
					}
					rel, err := filepath.Rel(root, p)
					if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
						return api.OnResolveResult{}, fmt.Errorf("import %q leaves the provider's folder %s", a.Path, root)
					}
					return api.OnResolveResult{}, nil
				}
				return api.OnResolveResult{}, fmt.Errorf("cannot import %q: a provider may import only 'aios-sdk' and relative files in its folder (there is no require, fs, network or process)", a.Path)
			})
			// The check above is on the import's text; esbuild then follows
			// symbolic links, so the file it loads (named by its real
			// path) is checked again: a link in the folder to a file
			// outside it must not bundle that file.
			b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "file"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
				if !inFolder(root, a.Path) {
					return api.OnLoadResult{}, fmt.Errorf("%s leaves the provider's folder %s (through a symbolic link)", a.Path, root)
				}
				loaded(a.Path)
				return bomless(a.Path)
			})
			b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "aios-sdk"}, func(api.OnLoadArgs) (api.OnLoadResult, error) {
				src := sdkModuleSource
				return api.OnLoadResult{Contents: &src, Loader: api.LoaderJS}, nil
			})
		},
	}
}

// bom is the UTF-8 byte order mark.
const bom = "\uFEFF"

// bomless loads a file that starts with a byte order mark without it:
// esbuild counted the mark as a column, so every error on the file's
// first line was one column off and quoted the invisible mark. Any other
// file esbuild reads itself (an empty result).
func bomless(path string) (api.OnLoadResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return api.OnLoadResult{}, nil // esbuild's read says why
	}
	var head [len(bom)]byte
	n, _ := io.ReadFull(f, head[:])
	_ = f.Close()
	if n < len(bom) || string(head[:]) != bom {
		return api.OnLoadResult{}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return api.OnLoadResult{}, err
	}
	src := strings.TrimPrefix(string(data), bom)
	loader, ok := pinnedLoaders[strings.ToLower(filepath.Ext(path))]
	if !ok {
		loader = api.LoaderDefault
	}
	return api.OnLoadResult{Contents: &src, Loader: loader}, nil
}

// inFolder reports whether path, with its symbolic links resolved, is
// inside root (a real path).
func inFolder(root, path string) bool {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		path = r
	}
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// tsconfigExtends finds an "extends" member in a tsconfig.json.
var tsconfigExtends = regexp.MustCompile(`"extends"\s*:`)

// readPinned reads the file at path and checks it against pins.
func readPinned(path string, pins map[string]string) ([]byte, error) {
	want, ok := pins[path]
	if !ok {
		return nil, fmt.Errorf("%s is not pinned by the provider's signed Adapter Card: a signed provider loads only the files its card pins (sign the card again with `aios-host sign`, which pins every file of its folder)", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := abi.CheckPin(path, data, want); err != nil {
		return nil, err
	}
	return data, nil
}

// pinnedLoaders are the loaders for the file kinds a provider's bundle may
// import, by extension.
var pinnedLoaders = map[string]api.Loader{
	".js": api.LoaderJS, ".mjs": api.LoaderJS, ".cjs": api.LoaderJS, ".jsx": api.LoaderJSX,
	".ts": api.LoaderTS, ".mts": api.LoaderTS, ".cts": api.LoaderTS, ".tsx": api.LoaderTSX,
	".json": api.LoaderJSON, ".txt": api.LoaderText,
}

// pinnedPlugin loads every file of the bundle itself, checked against
// pins, so that what is bundled is what the card signed.
func pinnedPlugin(pins map[string]string) api.Plugin {
	return api.Plugin{
		Name: "aios-pinned",
		Setup: func(b api.PluginBuild) {
			b.OnLoad(api.OnLoadOptions{Filter: `.*`, Namespace: "file"}, func(a api.OnLoadArgs) (api.OnLoadResult, error) {
				loader, ok := pinnedLoaders[strings.ToLower(filepath.Ext(a.Path))]
				if !ok {
					loader = api.LoaderDefault
				}
				data, err := readPinned(a.Path, pins)
				if err != nil {
					return api.OnLoadResult{}, err
				}
				src := strings.TrimPrefix(string(data), bom)
				return api.OnLoadResult{Contents: &src, Loader: loader}, nil
			})
		},
	}
}

// inlineMapPrefix starts the line esbuild ends a bundle with (SourceMapInline).
const inlineMapPrefix = "\n//# sourceMappingURL=data:application/json;base64,"

// oneBasedColumns shifts every source column of code's inline source map
// by one. Source maps count columns from 0 and goja prints the mapped
// column as it finds it, so an error at the start of a line was "(at
// a.js:4:0)" and every runtime error's column one less than an editor's and
// than esbuild's syntax errors (which are 1-based). A mapping's source
// column is relative to the previous one across the whole "mappings"
// string, so adding one to the first shifts them all. code is returned
// unchanged when it has no map this can read.
func oneBasedColumns(code string) string {
	i := strings.LastIndex(code, inlineMapPrefix)
	if i < 0 {
		return code
	}
	enc := strings.TrimRight(code[i+len(inlineMapPrefix):], "\n")
	raw, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return code
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return code
	}
	var mappings string
	if json.Unmarshal(m["mappings"], &mappings) != nil {
		return code
	}
	shifted, ok := shiftFirstSourceColumn(mappings)
	if !ok {
		return code
	}
	m["mappings"], _ = json.Marshal(shifted)
	out, err := json.Marshal(m)
	if err != nil {
		return code
	}
	return code[:i] + inlineMapPrefix + base64.StdEncoding.EncodeToString(out) + "\n"
}

const vlqDigits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

// shiftFirstSourceColumn adds one to the source column (the fourth field)
// of the first segment of mappings that has one.
func shiftFirstSourceColumn(mappings string) (string, bool) {
	start := 0
	for start < len(mappings) {
		end := start
		for end < len(mappings) && mappings[end] != ',' && mappings[end] != ';' {
			end++
		}
		if vals, ok := decodeVLQ(mappings[start:end]); ok && len(vals) >= 4 {
			vals[3]++
			var b strings.Builder
			for _, v := range vals {
				encodeVLQ(&b, v)
			}
			return mappings[:start] + b.String() + mappings[end:], true
		}
		start = end + 1
	}
	return mappings, false
}

func decodeVLQ(seg string) ([]int, bool) {
	var vals []int
	shift, acc := 0, 0
	for i := 0; i < len(seg); i++ {
		d := strings.IndexByte(vlqDigits, seg[i])
		if d < 0 || shift > 30 {
			return nil, false
		}
		acc |= (d & 31) << shift
		if d&32 != 0 {
			shift += 5
			continue
		}
		v := acc >> 1
		if acc&1 != 0 {
			v = -v
		}
		vals = append(vals, v)
		shift, acc = 0, 0
	}
	return vals, shift == 0
}

func encodeVLQ(b *strings.Builder, v int) {
	u := v << 1
	if v < 0 {
		u = (-v)<<1 | 1
	}
	for {
		d := u & 31
		u >>= 5
		if u > 0 {
			d |= 32
		}
		b.WriteByte(vlqDigits[d])
		if u == 0 {
			return
		}
	}
}
