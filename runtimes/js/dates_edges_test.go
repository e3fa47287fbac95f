package js

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
)

// TestDateResultAsISOString: a Date in a result becomes what
// ECMAScript's toISOString gives (JSON.stringify calls it through
// toJSON): year 1 (Go's zero time) is a date, not null; a year past 9999
// or before 0 is written with its sign and six digits; an invalid Date is
// null, as JSON.stringify makes it.
func TestDateResultAsISOString(t *testing.T) {
	for _, iso := range []string{IsolationInProcess, IsolationProcess} {
		t.Run(iso, func(t *testing.T) { probeDates(t, iso) })
	}
}

func probeDates(t *testing.T, isolation string) {
	rt := newRuntime(t, Options{Isolation: isolation})
	path := writeSource(t, "dates.js", `import { registerTool } from 'aios-sdk';
registerTool({ name: 'dates', parameters: { type: 'object' } }, () => ({
  epoch: new Date(0),
  y1: new Date('0001-01-01T00:00:00Z'),
  y9999: new Date('9999-12-31T23:59:59.999Z'),
  max: new Date(8.64e15),
  min: new Date(-8.64e15),
  bc1: new Date(-62198755200000),
  y0: new Date(-62167219200000),
  invalid: new Date(NaN),
  list: [new Date(NaN), new Date(5)],
}));
`)
	p, err := rt.load(context.Background(), abi.Source{Path: path}, abi.RuntimeJS)
	if err != nil {
		t.Fatal(err)
	}
	defer p.(interface{ Close() error }).Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := p.Call(ctx, &abi.ToolCall{ID: "c1", Tool: "dates", Params: map[string]any{}}, newFakeEnv())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"epoch":   "1970-01-01T00:00:00.000Z",
		"y1":      "0001-01-01T00:00:00.000Z",
		"y9999":   "9999-12-31T23:59:59.999Z",
		"max":     "+275760-09-13T00:00:00.000Z",
		"min":     "-271821-04-20T00:00:00.000Z",
		"bc1":     "-000001-01-01T00:00:00.000Z",
		"y0":      "0000-01-01T00:00:00.000Z",
		"invalid": nil,
		"list":    []any{nil, "1970-01-01T00:00:00.005Z"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}
