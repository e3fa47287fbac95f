package python

import (
	"os"
	"strings"
)

// OfferJSONOnly makes rt's workers offer only json in their hello, as a
// worker without the msgpack module does.
func OfferJSONOnly(rt *Runtime) { rt.noMsgpack = true }

// NoPIDNamespace makes rt start its workers without a PID namespace.
func NoPIDNamespace(rt *Runtime) { rt.noPIDNS = true }

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

// MaxCallConns is the most brokered connections a call holds open.
const MaxCallConns = maxCallConns
