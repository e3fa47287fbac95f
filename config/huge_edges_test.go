package config

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/internal/testutil"
	"gopkg.in/yaml.v3"
)

// TestManyErrorsReportedInLinearTime: each error about a key the file
// leaves out (agents.NAME.rate.per_second of a rate giving only a burst)
// found its line by comparing every key path of the file with its own, so
// a generated file of 9000 agents, 9000 providers and 9000 per_tool
// rates with one mistake each took about a minute to be refused (8000
// agents alone took 9 s). Each is found by its enclosing keys now, and
// still names the line of the rate.
func TestManyErrorsReportedInLinearTime(t *testing.T) {
	const n = 9000
	var b strings.Builder
	b.WriteString("agents:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  a%d:\n    rate: {burst: 1}\n", i)
	}
	b.WriteString("providers:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  org.x.p%d:\n    rate: {burst: 1}\n", i)
	}
	b.WriteString("rate_limits:\n  per_tool:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "    t%d: {burst: 1}\n", i)
	}
	// Bounded by CPU time, which a machine loaded by other work does not
	// stretch as it stretches the wall clock (15 s under -race on a loaded
	// machine; the quadratic search took a minute without -race).
	cpu := testutil.ProcessCPU()
	done := make(chan error, 1)
	go func() {
		_, err := Parse([]byte(b.String()), "c.yaml")
		done <- err
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Minute):
		t.Fatalf("Parse of %d agents, providers and tool rates with a rate error each did not finish in 5 minutes", n)
	}
	if d := testutil.ProcessCPU() - cpu; d > 60*time.Second {
		t.Fatalf("Parse of %d agents, providers and tool rates with a rate error each took %v of CPU", n, d)
	} else {
		t.Logf("%v of CPU", d)
	}
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if got := strings.Count(msg, "\n") + 1; got != 3*n {
		t.Errorf("%d errors, want %d", got, 3*n)
	}
	// a0 is at line 2, its rate at line 3; the last agent's rate at line
	// 2n+1; providers: at line 2n+2, the last provider's rate at 4n+2;
	// rate_limits at 4n+3, per_tool at 4n+4, the last tool's rate at 5n+4.
	for _, want := range []string{
		"c.yaml:3: agents.a0.rate.per_second: must be positive, got 0",
		fmt.Sprintf("c.yaml:%d: agents.a%d.rate.per_second: must be positive", 2*n+1, n-1),
		fmt.Sprintf(`c.yaml:%d: providers["org.x.p%d"].rate.per_second: must be positive`, 4*n+2, n-1),
		fmt.Sprintf(`c.yaml:%d: rate_limits.per_tool.t%d.per_second: must be positive`, 5*n+4, n-1),
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("no %q in the errors (first: %.200s)", want, msg)
		}
	}
}

// TestMappingEntriesBounded: yaml.v3 compares every key of a mapping it
// decodes into a map with every other, so a file's one big mapping cost
// CPU by the square of its size: a 1 MiB tool.aios.yaml (a plugin
// folder's file, decoded with DecodeFile) of 75000 artifact.files took
// 20 s, a config of 128000 agents 3.5 minutes, with no word. A mapping of
// more than MaxMapEntries entries is refused at once, naming its line and
// key; one of MaxMapEntries is taken.
func TestMappingEntriesBounded(t *testing.T) {
	agents := func(n int) []byte {
		var b strings.Builder
		b.WriteString("agents:\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "  a%d: {}\n", i)
		}
		return []byte(b.String())
	}
	parse := func(data []byte) (*Config, error) {
		type res struct {
			c   *Config
			err error
		}
		// Bounded by CPU time, not stretched by a loaded machine.
		cpu := testutil.ProcessCPU()
		done := make(chan res, 1)
		go func() {
			c, err := Parse(data, "c.yaml")
			done <- res{c, err}
		}()
		select {
		case r := <-done:
			if d := testutil.ProcessCPU() - cpu; d > 20*time.Second {
				t.Fatalf("Parse took %v of CPU", d)
			} else {
				t.Logf("%v of CPU", d)
			}
			return r.c, r.err
		case <-time.After(5 * time.Minute):
			t.Fatal("Parse did not finish in 5 minutes")
			return nil, nil
		}
	}
	_, err := parse(agents(MaxMapEntries + 1))
	want := fmt.Sprintf("c.yaml:2: agents: %d entries, more than the %d one mapping may hold", MaxMapEntries+1, MaxMapEntries)
	if err == nil || err.Error() != want {
		t.Errorf("%d agents: %v, want %s", MaxMapEntries+1, err, want)
	}
	c, err := parse(agents(MaxMapEntries - 1)) // and cli
	if err != nil || len(c.Agents) != MaxMapEntries {
		t.Errorf("%d agents: %v", MaxMapEntries, err)
	}

	var b strings.Builder
	b.WriteString("artifact:\n  files:\n")
	for i := 0; b.Len() < 1<<20-20; i++ {
		fmt.Fprintf(&b, "    f%d: x\n", i)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatal(err)
	}
	var card struct {
		Artifact struct {
			Files map[string]string `yaml:"files"`
		} `yaml:"artifact"`
	}
	done := make(chan error, 1)
	go func() { done <- DecodeFile(&doc, "tool.aios.yaml", &card) }()
	select {
	case err := <-done:
		if err == nil || !strings.HasPrefix(err.Error(), "tool.aios.yaml:3: artifact.files: ") || !strings.Contains(err.Error(), "entries, more than the") {
			t.Errorf("1 MiB of artifact.files: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("DecodeFile of 1 MiB of artifact.files did not finish in 30 s")
	}
}
