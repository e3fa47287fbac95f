package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/aios-host/aios-host/space"
)

const spaceUsage = `
Space storage is the host's content-addressed object store: tools receive
large inputs by ObjectId ("sha256:" + 64 hex digits of the content) instead
of inline bytes. Objects live in named spaces (a-z 0-9 _ . -) under
DATA/spaces.

  space put SPACE FILE   store FILE ("-" for standard input), print its ObjectId
  space get SPACE ID     write the object to standard output
  space list SPACE       print the ObjectIds in SPACE
  space spaces           print the names of the spaces`

func runSpace(c *cli, args []string) int {
	fs := c.flags("space", "space put SPACE FILE | get SPACE ID | list SPACE | spaces", spaceUsage)
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 0 {
		return c.usageError(fs, "space needs a sub-command: put, get, list or spaces")
	}
	want := map[string]int{"put": 2, "get": 2, "list": 1, "spaces": 0}
	n, known := want[pos[0]]
	if !known {
		return c.usageError(fs, "unknown space sub-command %q (want put, get, list or spaces)", pos[0])
	}
	if len(pos)-1 != n {
		return c.usageError(fs, "space %s needs %d arguments, got %d", pos[0], n, len(pos)-1)
	}
	cfg, err := c.config()
	if err != nil {
		return c.fail(err)
	}
	store, err := openSpaces(cfg)
	if err != nil {
		return c.fail(err)
	}
	switch pos[0] {
	case "put":
		var data []byte
		if pos[2] == "-" {
			data, err = io.ReadAll(io.LimitReader(c.stdin, store.MaxObjectBytes()+1))
		} else {
			data, err = os.ReadFile(pos[2])
		}
		if err != nil {
			return c.fail(err)
		}
		id, err := store.Put(pos[1], data)
		if err != nil {
			return c.spaceFail(err)
		}
		fmt.Fprintln(c.stdout, id)
	case "get":
		data, err := store.Get(pos[1], pos[2])
		if err != nil {
			return c.spaceFail(err)
		}
		if _, err := c.stdout.Write(data); err != nil {
			return c.fail(err)
		}
	case "list":
		ids, err := store.List(pos[1])
		if err != nil {
			return c.spaceFail(err)
		}
		for _, id := range ids {
			fmt.Fprintln(c.stdout, id)
		}
	case "spaces":
		names, err := store.Spaces()
		if err != nil {
			return c.fail(err)
		}
		for _, n := range names {
			fmt.Fprintln(c.stdout, n)
		}
	}
	return exitOK
}

// spaceFail reports a store error; a malformed id or space name is a usage
// error.
func (c *cli) spaceFail(err error) int {
	fmt.Fprintf(c.stderr, "aios-host: %v\n", err)
	if errors.Is(err, space.ErrInvalid) {
		return exitUsage
	}
	return exitFail
}
