package wit

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Command implements `aios-host wit [--features a,b] [--all-features]
// FILE_OR_DIR`: it parses and resolves a WIT file or package directory and
// prints the resolved packages as WIT, or the error with its position. It
// returns the process exit code: 0 on success, 1 on a WIT error, 2 on a
// usage error.
func Command(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("wit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	features := fs.String("features", "", "comma-separated @unstable features to enable")
	all := fs.Bool("all-features", false, "enable every @unstable feature")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: aios-host wit [--features a,b] [--all-features] FILE_OR_DIR")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	opts := Options{AllFeatures: *all}
	for _, f := range strings.Split(*features, ",") {
		if f = strings.TrimSpace(f); f != "" {
			opts.Features = append(opts.Features, f)
		}
	}
	res, err := Parse(fs.Arg(0), opts)
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	io.WriteString(stdout, Print(res))
	return 0
}
