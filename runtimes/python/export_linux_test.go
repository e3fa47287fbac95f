//go:build linux

package python

import (
	"os"
	"strings"
)

// WorkerCgroups counts the worker control groups the host has now (-1:
// none made).
func WorkerCgroups() int {
	c, err := hostCgroups()
	if err != nil {
		return -1
	}
	n := 0
	for _, p := range c.parents {
		ents, _ := os.ReadDir(p)
		for _, e := range ents {
			if e.IsDir() && strings.HasPrefix(e.Name(), "w") {
				n++
			}
		}
	}
	return n
}
