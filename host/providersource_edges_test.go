package host

import (
	"context"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/runtimes/native"
)

// An in-process provider added with AddProvider and no ProviderMeta.Source
// (Source is optional) was refused with "provider from : invalid provider
// id ..." or "provider  (from ) ...": the message named no input. It names
// the provider's Go type instead, and a nil provider is "provider is nil".
func TestProviderWithoutSourceNamedByType(t *testing.T) {
	h, err := New(Options{Config: config.Default()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	p := native.New(abi.ProviderInfo{ID: "Bad ID"})
	p.MustRegister(abi.ToolDef{Name: "t", Parameters: native.JSONSchema(nil)},
		func(context.Context, any, abi.Env) (any, error) { return 1, nil })
	err = h.AddProvider(ctx, p, ProviderMeta{})
	if err == nil {
		t.Fatal("a provider with id \"Bad ID\" was added")
	}
	msg := err.Error()
	if strings.Contains(msg, "from :") || strings.Contains(msg, "from )") || !strings.Contains(msg, "*native.Provider") {
		t.Errorf("AddProvider without Source = %q; want the provider's Go type named, not an empty source", msg)
	}
	if abi.CodeOf(err) != abi.InvalidRequest {
		t.Errorf("code %s, want InvalidRequest", abi.CodeOf(err))
	}
	err = h.AddProvider(ctx, nil, ProviderMeta{})
	if err == nil || err.Error() != "InvalidRequest: provider is nil" {
		t.Errorf("AddProvider(nil) = %v; want InvalidRequest: provider is nil", err)
	}
	err = h.AddProvider(ctx, nil, ProviderMeta{Source: "plugins/x.js"})
	if err == nil || !strings.Contains(err.Error(), "provider from plugins/x.js is nil") {
		t.Errorf("AddProvider(nil) with a Source = %v; want it named", err)
	}
}
