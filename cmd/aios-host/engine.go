package main

// WebAssembly engine selection (engineer X): `aios-host run --engine
// wazero|wasmtime` and `engine:` in the runtimes.wasm config section choose
// the engine for core modules and components; wasmtime exists only in a
// binary built with -tags wasmtime (engine_wasmtime.go).

import (
	"fmt"
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/wire"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// wasmEngine returns runtimes.wasm.engine ("" when unset: wazero).
func wasmEngine(cfg *config.Config) string {
	n, ok := cfg.Runtimes["wasm"]
	if !ok || n.Kind != yaml.MappingNode {
		return ""
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "engine" {
			return n.Content[i+1].Value
		}
	}
	return ""
}

// setWasmEngine checks engine against the engines compiled in and stores it
// as runtimes.wasm.engine.
func setWasmEngine(cfg *config.Config, engine string) error {
	if err := checkEngine(engine); err != nil {
		return err
	}
	if cfg.Runtimes == nil {
		cfg.Runtimes = map[string]yaml.Node{}
	}
	cfg.Runtimes["wasm"] = withKey(cfg.Runtimes["wasm"], "engine", engine)
	return nil
}

// checkEngine says why --engine engine cannot be used (nil when it can).
func checkEngine(engine string) error {
	if !slices.Contains(wasm.Engines(), engine) {
		if engine == wasm.EngineWasmtime {
			return fmt.Errorf("--engine wasmtime: this binary was built without it (build with -tags wasmtime; needs cgo)")
		}
		return fmt.Errorf("--engine %q: want one of %q", engine, wasm.Engines())
	}
	return nil
}

// withKey returns the runtime section n with key set to value (a
// string), its other keys kept.
func withKey(n yaml.Node, key, value string) yaml.Node {
	if n.Kind != yaml.MappingNode {
		n = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content[i+1] = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
			return n
		}
	}
	n.Content = append(n.Content,
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
		&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
	return n
}

// setWire checks format and stores it as runtimes.js.wire and
// runtimes.python.wire (run --wire).
func setWire(cfg *config.Config, format string) error {
	if _, err := wire.Check("--wire", format); err != nil || format == "" {
		return fmt.Errorf("--wire %q: want msgpack or json", format)
	}
	if cfg.Runtimes == nil {
		cfg.Runtimes = map[string]yaml.Node{}
	}
	cfg.Runtimes["js"] = withKey(cfg.Runtimes["js"], "wire", format)
	cfg.Runtimes["python"] = withKey(cfg.Runtimes["python"], "wire", format)
	return nil
}
