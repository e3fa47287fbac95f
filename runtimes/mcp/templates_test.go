package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
)

// TestResourceTemplates: a server's resource templates become read
// tools whose parameters are the template's variables; a call expands
// the template and reads the URI. Through the host, so the derived schema
// is what refuses a missing or empty required variable.
func TestResourceTemplates(t *testing.T) {
	h, err := host.New(host.Options{Config: config.Default(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	logs := &syncBuffer{}
	b, err := New(Options{Servers: map[string]ServerConfig{"p": fakeConfig(t, "templates")},
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Publish: func(ctx context.Context, p abi.Provider, source string) error {
			return h.ReplaceProvider(ctx, p, host.ProviderMeta{Source: "mcp:" + source, Trust: abi.Untrusted, Partial: true})
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range h.Registry().Tools() {
		if strings.HasPrefix(e.Def.Name, "mcp-p-read-") {
			names = append(names, e.Def.Name)
		}
	}
	slices.Sort(names)
	want := []string{"mcp-p-read-blob-data", "mcp-p-read-file", "mcp-p-read-greeting", "mcp-p-read-mem-a-b", "mcp-p-read-note", "mcp-p-read-search"}
	if !slices.Equal(names, want) {
		t.Fatalf("read tools = %v, want %v", names, want)
	}
	for _, w := range []string{`resource template \"mem://bad/{id\"`, `resource template \"mem://other/{x}\": duplicate name mcp-p-read-greeting`} {
		if !strings.Contains(logs.String(), w) {
			t.Errorf("log lacks %s:\n%s", w, logs.String())
		}
	}
	note, err := h.Registry().Resolve("mcp-p-read-note", "")
	if err != nil || !strings.Contains(note.Def.Description, "mem://notes/{id}: A note by its id") {
		t.Fatalf("note tool: %+v", note)
	}

	read := func(tool string, params map[string]any) (string, error) {
		v, err := h.Call(context.Background(), &abi.ToolCall{Caller: "cli", Tool: tool, Params: params, Deadline: time.Now().Add(5 * time.Second)})
		if err != nil {
			return "", err
		}
		c, _ := v.(map[string]any)["contents"].([]any)
		if len(c) != 1 {
			return "", fmt.Errorf("result %v", v)
		}
		text, _ := c[0].(map[string]any)["text"].(string)
		return strings.TrimPrefix(text, "read "), nil
	}
	for _, tc := range []struct {
		tool   string
		params map[string]any
		uri    string
	}{
		{"mcp-p-read-note", map[string]any{"id": "a b/c"}, "mem://notes/a%20b%2Fc"},
		{"mcp-p-read-note", map[string]any{"id": int64(42)}, "mem://notes/42"},
		{"mcp-p-read-search", map[string]any{}, "mem://search"},
		{"mcp-p-read-search", map[string]any{"q": "x&y", "tags": []any{"red", true}}, "mem://search?q=x%26y&tags=red&tags=true"},
		{"mcp-p-read-file", map[string]any{"path": "etc/hosts"}, "file:///etc/hosts"},
		{"mcp-p-read-file", map[string]any{"path": "a b", "frag": "top"}, "file:///a%20b#top"},
		{"mcp-p-read-mem-a-b", map[string]any{"a": "x", "b": []any{"y", "z"}}, "mem://x//y/z"},
	} {
		uri, err := read(tc.tool, tc.params)
		if err != nil || uri != tc.uri {
			t.Errorf("%s %v: %q %v, want %q", tc.tool, tc.params, uri, err, tc.uri)
		}
	}
	for _, tc := range []struct {
		tool   string
		params map[string]any
		code   abi.ErrorCode
		want   string
	}{
		{"mcp-p-read-note", map[string]any{}, abi.InvalidParams, "id"},
		{"mcp-p-read-note", map[string]any{"id": ""}, abi.InvalidParams, "id"},
		{"mcp-p-read-note", map[string]any{"id": []any{"a"}}, abi.InvalidParams, "id"},
		{"mcp-p-read-note", map[string]any{"id": "1", "other": "x"}, abi.InvalidParams, "other"},
		{"mcp-p-read-mem-a-b", map[string]any{"a": "x", "b": []any{}}, abi.InvalidParams, "b"},
		{"mcp-p-read-note", map[string]any{"id": "missing"}, abi.NotFound, "Resource not found"},
	} {
		uri, err := read(tc.tool, tc.params)
		if abi.CodeOf(err) != tc.code || !strings.Contains(fmt.Sprint(err), tc.want) {
			t.Errorf("%s %v: %q %v, want %s naming %q", tc.tool, tc.params, uri, err, tc.code, tc.want)
		}
	}
}

// TestResourceTemplatesOff: resource_templates: false imports none; a
// server that does not know resources/templates/list (the plain fake)
// keeps its resources.
func TestResourceTemplatesOff(t *testing.T) {
	off := false
	sc := fakeConfig(t, "templates")
	sc.Templates = &off
	_, rec, _, err := startBridge(t, map[string]ServerConfig{"p": sc, "q": fakeConfig(t, "plain")})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"org.aios.mcp.p", "org.aios.mcp.q"} {
		got := rec.toolNames(id)
		if !contains(got, "mcp-"+id[len(id)-1:]+"-read-greeting") || contains(got, "mcp-"+id[len(id)-1:]+"-read-note") {
			t.Errorf("%s: tools %v", id, got)
		}
	}
}

func TestTemplateVars(t *testing.T) {
	for _, tc := range []struct {
		tmpl string
		want string
		err  string
	}{
		{"x://{a}{+b}{/c*}{.d:3}", "a! b! c!* d!", ""},
		{"x://{?q,r*}{&s}{;t}{#u}", "q r* s t u", ""},
		{"x://{?a}/{a}", "a!", ""},
		{"x://{a.b,c%20d}", "a.b! c%20d!", ""},
		{"x://{a..b}", "", "not an RFC 6570 variable name"},
		{"x://{a", "", "closing"},
	} {
		vars, err := templateVars(tc.tmpl)
		var got []string
		for _, v := range vars {
			s := v.name
			if v.required {
				s += "!"
			}
			if v.explode {
				s += "*"
			}
			got = append(got, s)
		}
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v %v, want error %q", tc.tmpl, got, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %v %v, want %s", tc.tmpl, got, err, tc.want)
		}
	}
}
