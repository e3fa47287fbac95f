package host

import (
	"strconv"
	"sync"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// TestGrantCacheChurn: 1,200 agents, half of them holding
// ReadSpace(secret), make nested calls of needs-secret two deep from 8
// goroutines at once, so the nested-grants cache (cleared past 1,024
// entries) is filled, cleared and read concurrently: every call gets
// exactly its own agent's answer, and no race.
func TestGrantCacheChurn(t *testing.T) {
	const agents = 1200
	te := newTestHost(t, func(c *config.Config) {
		for i := range agents {
			g := []string{"CallTool(*)", "ReadSpace(src-" + strconv.Itoa(i) + ")"}
			if i%2 == 0 {
				g = append(g, "ReadSpace(secret)")
			}
			c.Agents["a"+strconv.Itoa(i)] = config.Agent{Grants: g}
		}
		c.RateLimits.Global = nil
	})
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range 2 * agents / 8 {
				i := (w*agents/8 + n*7) % agents
				_, err := te.call("a"+strconv.Itoa(i), "nested", map[string]any{"tool": "nested", "params": map[string]any{"tool": "needs-secret"}})
				want := i%2 == 0
				if got := err == nil; got != want || (!want && abi.CodeOf(err) != abi.CapabilityDenied) {
					select {
					case errs <- "a" + strconv.Itoa(i) + ": " + func() string {
						if err == nil {
							return "allowed"
						}
						return err.Error()
					}():
					default:
					}
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
