package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/aios-host/aios-host/component"
	"github.com/aios-host/aios-host/wit"
)

// runWit parses and resolves a WIT file or package folder and prints the
// resolved packages as WIT, or the error with its file:line:col.
func runWit(c *cli, args []string) int {
	fs := c.flags("wit", "wit [--features a,b] [--all-features] FILE_OR_DIR", `
Parse a WIT file, or a package folder (its *.wit files plus deps/), resolve it
and print the resolved packages as WIT. Errors are printed with file:line:col
and exit with status 1. Items gated with @unstable(feature = ...) are left out
unless the feature is enabled. The host's own package aios:sdk@0.1.0 (the
interfaces components import: spaces, tools, log) is known: a package that
imports it and does not bring it in deps/ gets it, printed with the rest.

A .wasm file is read as a WIT package in its binary encoding (as
'wasm-tools component wit --wasm' writes it and package registries publish
it), a .wat file as that encoding in text form; deps/ may hold either too.
For the WIT of a component (a .wasm with code), use 'aios-host inspect'.`)
	features := fs.String("features", "", "comma-separated @unstable `features` to enable")
	all := fs.Bool("all-features", false, "enable every @unstable feature")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return c.usageError(fs, "wit takes exactly one FILE_OR_DIR")
	}
	// The host's own aios:sdk, for a world that imports it (as the seed's
	// does) without a copy in deps/.
	opts := wit.Options{AllFeatures: *all, Builtin: map[string]string{component.SDKPackage: component.SDKWIT}}
	for _, f := range strings.Split(*features, ",") {
		if f = strings.TrimSpace(f); f != "" {
			opts.Features = append(opts.Features, f)
		}
	}
	res, err := wit.Parse(pos[0], opts)
	var np *wit.NotPackageError
	if errors.As(err, &np) {
		// The file at fault, which may be in the folder's deps/.
		return c.fail(fmt.Errorf("%w ('aios-host inspect %s' prints a component's WIT)", err, np.Path))
	}
	if err != nil {
		return c.fail(err)
	}
	fmt.Fprint(c.stdout, wit.Print(res))
	return exitOK
}
