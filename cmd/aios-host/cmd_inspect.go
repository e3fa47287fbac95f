package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/component"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/registry"
	"github.com/aios-host/aios-host/runtimes/python"
	"github.com/aios-host/aios-host/runtimes/wasm"
	"github.com/aios-host/aios-host/trust"
)

// runInspect describes a .wasm file without registering it: for a
// component, its WIT (rebuilt from the binary) and each tool's JSON Schema;
// for a core module, the ToolRegister its guest returns.
func runInspect(c *cli, args []string) int {
	fs := c.flags("inspect", "inspect [--json] FILE", `
Describe a plugin file. A component (Component Model binary) prints its
WIT and each exported function's tool name with its input and return JSON
Schema; a core module prints the tools its guest registers (loaded with
the config's runtimes.wasm limits and timeouts, nothing granted); a .js, .ts or
.py file is loaded with its runtime (runtimes.* of the config, unsigned)
and prints its tools and the JSON Schemas its SDK made of their parameters
and returns; so is a provider folder (its index.ts or index.js, else its
tool.<ext> or only plugin file, with the modules it imports; a .wasm one
is inspected as that file; with an adapter.json or tool.aios.yaml, bound to
it as the host serves it: its id, versions, levels, schemas, artifact.path).
Each tool of a module or script is shown with its version.
--json prints {kind, provider, wit, tools: [{name, version, description,
input_schema, output_schema}]}; kind is component, module, js, ts or python.`)
	asJSON := fs.Bool("json", false, "machine-readable output")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return c.usageError(fs, "inspect takes exactly one FILE")
	}
	if st, err := os.Stat(pos[0]); err == nil && st.IsDir() {
		abs, err := filepath.Abs(pos[0])
		if err != nil {
			return c.fail(err)
		}
		fe := pickFolderEntry(abs)
		// A folder with a card or tool.aios.yaml is served as the card
		// says (its id, versions, levels, schemas, artifact.path): inspect
		// showed the artifact's own registration instead
		// (TestInspectFolderAppliesItsCard).
		desc, err := folderDescription(pos[0], abs)
		if err != nil {
			return c.fail(err)
		}
		if desc != "" {
			reg, kind, err := c.inspectDescribed(pos[0], abs, desc, fe)
			return c.printInspected(pos[0], reg, err, *asJSON, kind)
		}
		if fe.index != "" || !strings.EqualFold(filepath.Ext(fe.art), ".wasm") {
			// A JS/TS provider folder (plugins/NAME/index.ts with its
			// own modules), loaded as the host loads one: it failed "is
			// a directory" (TestInspectProviderFolder).
			reg, err := c.inspectFolder(pos[0], abs, fe)
			return c.printInspected(pos[0], reg, err, *asJSON, "")
		}
		// A WebAssembly provider folder: the module or component the
		// host loads of it, which inspect named and did not inspect
		// ("its plugin file is x.wasm: inspect that file";
		// TestInspectWasmProviderFolder).
		pos[0] = fe.art
	}
	b, err := readInputFile(pos[0], maxInspectBytes, "a plugin file, the default of limits.max_plugin_bytes")
	if err != nil {
		return c.fail(err)
	}
	if component.IsComponent(b) {
		// With the config's runtimes.wasm, as run loads it (on wazero,
		// whatever its engine: TestInspectComponentUsesConfig).
		cfg, err := c.config()
		if err != nil {
			return c.fail(err)
		}
		opts, err := wazeroComponentOptions(cfg, nil)
		if err != nil {
			return c.fail(err)
		}
		in, err := component.InspectWith(c.ctx, b, pos[0], opts)
		if err == nil {
			err = checkRegistrable(pos[0], &abi.ToolRegister{Provider: in.Provider, Tools: in.Tools})
		}
		if err != nil {
			return c.fail(err)
		}
		if !*asJSON {
			var text strings.Builder
			if err := in.WriteText(&text); err != nil {
				return c.fail(err)
			}
			io.WriteString(c.stdout, termText(text.String()))
			return exitOK
		}
		return printInspectJSON(c, in.JSON())
	}
	// A core module, or a .js, .ts or .py file: the tools it registers.
	if bytes.HasPrefix(b, []byte("\x00asm")) {
		// The bytes read above: read again, a pipe (`<(…)`) gave
		// nothing ("not a WebAssembly binary"), and a file replaced
		// meanwhile was another module, unbounded.
		// With the config's runtimes.wasm, as run loads it and as
		// scripts are inspected (TestInspectModuleUsesConfig).
		cfg, err := c.config()
		if err != nil {
			return c.fail(err)
		}
		var wcfg wasm.Config
		if err := cfg.Decode(cfg.Runtimes["wasm"], "runtimes.wasm", &wcfg); err != nil {
			return c.fail(err)
		}
		log, err := c.logger(slog.LevelWarn)
		if err != nil {
			return c.fail(err)
		}
		reg, err := wasm.InspectBytes(c.ctx, pos[0], b, wcfg, log)
		return c.printInspected(pos[0], reg, err, *asJSON, "module")
	}
	reg, err := c.inspectScript(pos[0])
	return c.printInspected(pos[0], reg, err, *asJSON, "")
}

// printInspected checks that reg could be registered and prints it, as
// text or as inspect's JSON with kind (its runtime when "").
func (c *cli) printInspected(path string, reg *abi.ToolRegister, err error, asJSON bool, kind string) int {
	if err == nil {
		err = checkRegistrable(path, reg)
	}
	if err != nil {
		return c.fail(err)
	}
	if !asJSON {
		return printRegister(c, reg)
	}
	if kind == "" {
		kind = reg.Provider.Runtime
	}
	return printInspectJSON(c, registerJSON(reg, kind))
}

// printInspectJSON prints inspect's --json output.
func printInspectJSON(c *cli, out any) int {
	// The file's texts (descriptions, names) are its author's choice:
	// what JSON leaves as it is but a terminal acts on is escaped.
	var js bytes.Buffer
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return c.fail(err)
	}
	c.stdout.Write(termSafeJSON(js.Bytes()))
	return exitOK
}

// checkRegistrable checks each tool as the registry does when the file is
// loaded (name, version, capability_required, parameters and returns
// schemas), by registering reg in a registry of its own: inspect showed a
// tool the host refuses as if it were fine. It compiled only the schemas,
// and for core modules and scripts only: a component whose aios-provider
// section gave a tool a schema or a capability_required the host refuses
// was printed, exit 0, and every load of it failed
// (TestInspectComponentRegistrable). The error names path first, as
// inspect's others do (TestInspectRegistryErrorNamesFile).
func checkRegistrable(path string, reg *abi.ToolRegister) error {
	err := registry.New().Register(&registry.ProviderRecord{Info: reg.Provider}, reg.Tools)
	var te *abi.ToolError
	if errors.As(err, &te) {
		return fmt.Errorf("%s: %s", path, te.Message)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

func registerJSON(reg *abi.ToolRegister, kind string) map[string]any {
	tools := make([]component.InspectTool, 0, len(reg.Tools))
	for _, t := range reg.Tools {
		tools = append(tools, component.InspectTool{Name: t.Name, Version: toolVersion(t), Description: t.Description, InputSchema: t.Parameters, OutputSchema: t.Returns,
			CapabilityRequired: t.CapabilityRequired, PermissionLevel: t.PermissionLevel, LatencyClass: t.LatencyClass})
	}
	return map[string]any{"kind": kind, "provider": reg.Provider, "tools": tools}
}

// toolVersion is the version the registry gives t: inspect showed none,
// and a module's a@1.0.0 and a@2.0.0 were two identical "tool a".
func toolVersion(t abi.ToolDef) string {
	if t.Version == "" {
		return registry.DefaultVersion
	}
	return t.Version
}

// inspectScript loads a file of a runtime other than WebAssembly (.js, .ts,
// .py) as the host would, unsigned, and returns its registration: a tool
// author sees the schemas the SDK made of the shorthand. inspect read
// .wasm files only ("not a WebAssembly binary").
func (c *cli) inspectScript(path string) (*abi.ToolRegister, error) {
	if host.IsTypeDeclaration(path) {
		return nil, fmt.Errorf("%s: a TypeScript declaration file (types only, no code): the host loads none; inspect the .ts or .js file that registers the tools", path)
	}
	reg, err := c.inspectSource(path, "", strings.ToLower(filepath.Ext(path)))
	if err != nil && strings.Contains(err.Error(), "leaves the provider's folder") {
		// A file is inspected as one at the top of a plugin folder; the
		// error's own advice (plugins/NAME/index.ts) was refused the
		// same way when inspect was given that file.
		err = fmt.Errorf("%w\ninspect reads a file as one at the top of a plugin folder: to load a provider folder with its modules, give the folder (aios-host inspect %s)", err, filepath.Dir(path))
	} else if err != nil && strings.Contains(err.Error(), "a tool file at the top of a plugin folder may read only itself") {
		// A Python tool importing a module of its folder: the same
		// (TestInspectPythonProviderFolder).
		err = fmt.Errorf("%w\ninspect reads a file as one at the top of a plugin folder: to load a provider folder with its modules, give the folder (aios-host inspect %s)", err, filepath.Dir(path))
	}
	return reg, err
}

// folderEntry is what the host loads of a provider folder: its JS/TS
// index (abi.JSFolderEntries), else the artifact discovery picks (its
// tool.<ext> or only plugin file); files are its plugin files, read when
// there is no index.
type folderEntry struct {
	index, art string
	files      []string
}

// pickFolderEntry finds the folderEntry of provider folder abs.
func pickFolderEntry(abs string) folderEntry {
	for _, n := range abi.JSFolderEntries {
		if st, err := os.Stat(filepath.Join(abs, n)); err == nil && !st.IsDir() {
			return folderEntry{index: n}
		}
	}
	var fe folderEntry
	fe.art = discovery.ArtifactIn(abs, func(name string) bool { // as host.LoaderFor matches
		lower := strings.ToLower(name)
		ok := !host.IsTypeDeclaration(lower) && slices.ContainsFunc(pluginExtensions, func(e string) bool { return strings.HasSuffix(lower, e) })
		if ok {
			fe.files = append(fe.files, name)
		}
		return ok
	})
	return fe
}

// folderDescription returns the card (adapter.json, *.adapter.json) or
// else the tool.aios.yaml (*.aios.yaml, *.aios.yml) of provider folder
// abs, at its top or in its aios/ folder (adapter.json, tool.aios.yaml),
// as discovery picks the description that binds the folder's artifact:
// "" when it has none; two cards (or two yaml files) are an error, as
// there.
func folderDescription(dir, abs string) (string, error) {
	var cards, ymls []string
	add := func(folder string, card, yml func(string) bool) error {
		ents, err := os.ReadDir(folder)
		if err != nil {
			return err
		}
		for _, e := range ents {
			n := e.Name()
			if e.IsDir() || strings.HasPrefix(n, ".") {
				continue
			}
			switch p := filepath.Join(folder, n); {
			case card(n):
				cards = append(cards, p)
			case yml(n):
				ymls = append(ymls, p)
			}
		}
		return nil
	}
	isCard := func(n string) bool { return n == "adapter.json" || strings.HasSuffix(n, ".adapter.json") }
	isYAML := func(n string) bool {
		return n == "tool.aios.yaml" || strings.HasSuffix(n, ".aios.yaml") || strings.HasSuffix(n, ".aios.yml")
	}
	if err := add(abs, isCard, isYAML); err != nil {
		return "", err
	}
	pkg := filepath.Join(abs, trust.PackageCardFolder)
	if st, err := os.Stat(pkg); err == nil && st.IsDir() {
		if err := add(pkg, func(n string) bool { return n == "adapter.json" }, func(n string) bool { return n == "tool.aios.yaml" }); err != nil {
			return "", err
		}
	}
	rel := func(ps []string) string {
		names := make([]string, len(ps))
		for i, p := range ps {
			names[i], _ = filepath.Rel(abs, p)
		}
		return strings.Join(names, ", ")
	}
	switch {
	case len(cards) > 1:
		return "", fmt.Errorf("%s: two cards (%s); keep one", dir, rel(cards))
	case len(cards) == 1:
		return cards[0], nil
	case len(ymls) > 1:
		return "", fmt.Errorf("%s: two tool.aios.yaml files (%s); keep one", dir, rel(ymls))
	case len(ymls) == 1:
		return ymls[0], nil
	}
	return "", nil
}

// inspectDescribed loads the artifact of provider folder dir (abs) that
// its description desc names (artifact.path, else the folder's entry fe)
// and binds it as discovery does (discovery.BindCard): the registration
// the host serves, unsigned. kind is inspect's kind of the artifact.
func (c *cli) inspectDescribed(dir, abs, desc string, fe folderEntry) (*abi.ToolRegister, string, error) {
	data, err := readInputFile(desc, discovery.MaxCardBytes, "a description")
	if err != nil {
		return nil, "", err
	}
	var card *discovery.Card
	if ext := filepath.Ext(desc); ext == ".yaml" || ext == ".yml" {
		card, err = discovery.ParseYAML(data, desc)
	} else {
		card, err = discovery.ParseCard(data, desc)
	}
	if err != nil {
		return nil, "", err
	}
	var reg *abi.ToolRegister
	kind := ""
	switch art := fe.art; {
	case card.Artifact != nil && card.Artifact.Path != "":
		art = filepath.Join(abs, filepath.FromSlash(card.Artifact.Path))
		if strings.EqualFold(filepath.Ext(art), ".wasm") {
			reg, kind, err = c.inspectWasm(art)
		} else {
			reg, err = c.inspectSource(art, abs, strings.ToLower(filepath.Ext(art)))
		}
	case fe.index == "" && strings.EqualFold(filepath.Ext(art), ".wasm"):
		reg, kind, err = c.inspectWasm(art)
	default:
		reg, err = c.inspectFolder(dir, abs, fe)
	}
	if err != nil {
		return nil, "", err
	}
	bound, err := discovery.BindCard(describedOnly{reg}, card)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", desc, err)
	}
	return bound.Describe(), kind, nil
}

// describedOnly is a registration as a provider that BindCard binds.
type describedOnly struct{ reg *abi.ToolRegister }

func (d describedOnly) Describe() *abi.ToolRegister { return d.reg }
func (describedOnly) Call(context.Context, *abi.ToolCall, abi.Env) (any, error) {
	return nil, errors.New("inspect calls no tool")
}
func (describedOnly) Close() error { return nil }

// inspectWasm returns the registration of the core module or component
// at path, loaded as runInspect loads it, and its kind.
func (c *cli) inspectWasm(path string) (*abi.ToolRegister, string, error) {
	b, err := readInputFile(path, maxInspectBytes, "a plugin file, the default of limits.max_plugin_bytes")
	if err != nil {
		return nil, "", err
	}
	cfg, err := c.config()
	if err != nil {
		return nil, "", err
	}
	if component.IsComponent(b) {
		opts, err := wazeroComponentOptions(cfg, nil)
		if err != nil {
			return nil, "", err
		}
		in, err := component.InspectWith(c.ctx, b, path, opts)
		if err != nil {
			return nil, "", err
		}
		return &abi.ToolRegister{Format: abi.FormatVersion, Provider: in.Provider, Tools: in.Tools}, "component", nil
	}
	var wcfg wasm.Config
	if err := cfg.Decode(cfg.Runtimes["wasm"], "runtimes.wasm", &wcfg); err != nil {
		return nil, "", err
	}
	log, err := c.logger(slog.LevelWarn)
	if err != nil {
		return nil, "", err
	}
	reg, err := wasm.InspectBytes(c.ctx, path, b, wcfg, log)
	return reg, "module", err
}

// inspectFolder loads provider folder dir (abs, its entry fe: its index.ts
// or index.js, which may import the folder's other files) as discovery
// loads a folder of its own: Path and Unit the folder.
func (c *cli) inspectFolder(dir, abs string, fe folderEntry) (*abi.ToolRegister, error) {
	if fe.index != "" {
		return c.inspectSource(abs, abs, filepath.Ext(fe.index))
	}
	// Its tool.<ext>, else its only plugin file, as discovery picks it:
	// a Python provider folder (plugins/NAME/tool.py beside helpers.py)
	// failed "a folder without index.ts or index.js", and its tool.py,
	// inspected as a top-level file, could not import helpers
	// (TestInspectPythonProviderFolder). (A .wasm one is inspected as
	// that file by the caller.)
	art, files := fe.art, fe.files
	switch {
	case art != "":
		return c.inspectSource(art, abs, strings.ToLower(filepath.Ext(art)))
	case len(files) > 1:
		sort.Strings(files)
		tools := 0
		for _, f := range files {
			if strings.TrimSuffix(f, filepath.Ext(f)) == "tool" {
				tools++
			}
		}
		if tools > 1 {
			return nil, fmt.Errorf("%s: several plugin files (%s), more than one tool.<ext>: discovery refuses the folder; keep one tool.<ext>, or inspect one of them", dir, strings.Join(files, ", "))
		}
		return nil, fmt.Errorf("%s: several plugin files (%s) and no tool.<ext>, index.ts or index.js: inspect one of them, or name the provider's tool.<ext> as discovery requires", dir, strings.Join(files, ", "))
	}
	return nil, fmt.Errorf("%s is a folder without a plugin file (tool.py, index.ts or index.js): inspect reads a plugin file, or a provider folder (plugins/NAME/tool.py, plugins/NAME/index.ts)", dir)
}

// inspectSource loads path (a file, or with unit a provider folder) with
// the loader of extension ext.
func (c *cli) inspectSource(path, unit, ext string) (*abi.ToolRegister, error) {
	cfg, err := c.config()
	if err != nil {
		return nil, err
	}
	log, err := c.logger(slog.LevelWarn)
	if err != nil {
		return nil, err
	}
	loaders, err := loaderTable(cfg, log)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, l := range loaders {
			closeLoader(l)
		}
	}()
	var exts []string
	for _, l := range loaders {
		for _, e := range l.Extensions() {
			if e == ".wasm" {
				continue
			}
			exts = append(exts, e)
			if e != ext {
				continue
			}
			abs, err := filepath.Abs(path)
			if err != nil {
				return nil, err
			}
			p, err := l.Load(c.ctx, abi.Source{Path: abs, Unit: unit, Trust: abi.Untrusted, Logger: log})
			if err != nil {
				return nil, err
			}
			defer p.Close()
			reg := *p.Describe()
			if reg.Provider.Runtime == "" {
				reg.Provider.Runtime = l.Runtime()
			}
			return &reg, nil
		}
	}
	return nil, fmt.Errorf("%s: not a plugin file: inspect reads WebAssembly (.wasm, starting with the \\0asm magic) and %s files", path, strings.Join(exts, ", "))
}

// closeLoader closes l after its providers, as closeHost closes the
// loaders of a host: the python runtime (whose Close has no error, so it
// is no io.Closer) waits for its workers and removes its control-group
// folders, and component.Dispatch's loaders are closed through Unwrap.
func closeLoader(l abi.Loader) {
	switch x := l.(type) {
	case *python.Runtime:
		x.Close()
	case interface{ Unwrap() []abi.Loader }:
		for _, y := range x.Unwrap() {
			if c, ok := y.(io.Closer); ok {
				_ = c.Close()
			}
		}
	case io.Closer:
		_ = x.Close()
	}
}

// printRegister prints reg for people. Its texts are the plugin's (not yet
// screened or checked by the registry): they are printed through termText.
func printRegister(c *cli, reg *abi.ToolRegister) int {
	kind := "core module"
	if reg.Provider.Runtime != abi.RuntimeWASM {
		kind = reg.Provider.Runtime
	}
	var text strings.Builder
	fmt.Fprintf(&text, "%s provider %s (runtime %s)\n", kind, reg.Provider.ID, reg.Provider.Runtime)
	if len(reg.Provider.Capabilities) > 0 {
		// What the host is asked to grant it (a guest author could not
		// see with inspect what the host would be asked for).
		fmt.Fprintf(&text, "  requests: %s\n", strings.Join(reg.Provider.Capabilities, ", "))
	}
	text.WriteString("\n")
	for _, t := range reg.Tools {
		fmt.Fprintf(&text, "tool %s %s\n", t.Name, toolVersion(t))
		if t.Description != "" {
			fmt.Fprintf(&text, "  %s\n", t.Description)
		}
		if len(t.CapabilityRequired) > 0 {
			fmt.Fprintf(&text, "  callers need: %s\n", strings.Join(t.CapabilityRequired, ", "))
		}
		if t.PermissionLevel != "" || t.LatencyClass != "" {
			fmt.Fprintf(&text, "  permission level %s, latency class %s\n", orText(t.PermissionLevel, "medium"), orText(t.LatencyClass, "normal"))
		}
		b, err := json.MarshalIndent(t.Parameters, "  ", "  ")
		if err != nil {
			return c.fail(err)
		}
		fmt.Fprintf(&text, "  input schema: %s\n", b)
		if t.Returns != nil {
			// As --json prints it (output_schema) and a component's text
			// its return schema: the text printed none.
			if b, err = json.MarshalIndent(t.Returns, "  ", "  "); err != nil {
				return c.fail(err)
			}
			fmt.Fprintf(&text, "  output schema: %s\n", b)
		}
		text.WriteString("\n")
	}
	io.WriteString(c.stdout, termText(text.String()))
	return exitOK
}

// orText is s, or def when s is empty (a level the registry defaults).
func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
