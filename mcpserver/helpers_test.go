package mcpserver

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/native"
)

// echoFunc is the Go function both benchmarks call: through aios-host, and
// directly from a go-sdk tool handler.
func echoFunc(v any) map[string]any { return map[string]any{"value": v} }

// testProvider offers:
//   - echo (mcp_exportable), returns {"value": ...}
//   - add (mcp_exportable, idempotent, public, object return schema)
//   - hidden (not exportable)
//   - pat-one (exported by the mcp.export pattern; permission critical, so
//     the default mcp agent — ceiling high — may list but not call it)
//   - pat-text (exported by the pattern, default permission, string result)
//   - needs-space (exportable, requires ReadSpace(secret))
func testProvider(id string) *native.Provider {
	p := native.New(abi.ProviderInfo{ID: id, Name: "test", Runtime: abi.RuntimeNative})
	p.MustRegister(abi.ToolDef{Name: "echo", Description: "echo a value", MCPExportable: true,
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"value": map[string]any{}}, "required": []any{"value"}}},
		func(_ context.Context, params any, _ abi.Env) (any, error) {
			return echoFunc(params.(map[string]any)["value"]), nil
		})
	p.MustRegister(abi.ToolDef{Name: "add", Description: "add integers", MCPExportable: true, Idempotent: true,
		PermissionLevel: abi.PermissionPublic,
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}},
			"required": []any{"a", "b"}, "additionalProperties": false},
		Returns: map[string]any{"type": "object", "properties": map[string]any{"sum": map[string]any{"type": "integer"}}, "required": []any{"sum"}}},
		func(_ context.Context, params any, _ abi.Env) (any, error) {
			m := params.(map[string]any)
			return map[string]any{"sum": m["a"].(int64) + m["b"].(int64)}, nil
		})
	p.MustRegister(abi.ToolDef{Name: "hidden", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "hidden", nil })
	p.MustRegister(abi.ToolDef{Name: "pat-one", PermissionLevel: abi.PermissionCritical, Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "critical result", nil })
	p.MustRegister(abi.ToolDef{Name: "pat-text", Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "text result", nil })
	p.MustRegister(abi.ToolDef{Name: "needs-space", MCPExportable: true, CapabilityRequired: []string{"ReadSpace(secret)"},
		Parameters: map[string]any{"type": "object"}},
		func(context.Context, any, abi.Env) (any, error) { return "secret", nil })
	return p
}

// newTestHost builds a host from yamlCfg (plus the default mcp agent) with
// testProvider registered, and an MCP server on it.
func newTestHost(t testing.TB, yamlCfg string) (*host.Host, *Server) {
	t.Helper()
	return newTestHostWith(t, yamlCfg, nil)
}

// newTestHostWith is newTestHost with a last word on the host's options
// (given the config, Data set).
func newTestHostWith(t testing.TB, yamlCfg string, opts func(*host.Options)) (*host.Host, *Server) {
	t.Helper()
	cfg, err := config.Parse([]byte(yamlCfg), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Data = t.TempDir()
	cfg.Plugins = nil
	if err := AddDefaultAgent(cfg); err != nil {
		t.Fatal(err)
	}
	o := host.Options{Config: cfg}
	if opts != nil {
		opts(&o)
	}
	h, err := host.New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	if err := h.AddProvider(context.Background(), testProvider("org.test.tools"), host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Host: h, Resource: "http://127.0.0.1/mcp"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return h, s
}

// connectInMemory connects a go-sdk client to s over in-memory transports.
func connectInMemory(t testing.TB, s *Server, opts *mcpsdk.ClientOptions) *mcpsdk.ClientSession {
	t.Helper()
	ct, st := mcpsdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "test"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// connectStdio connects a go-sdk client to s over its stdio transport
// (through pipes), where the client's 16 MiB message limit applies, and
// returns the session with the context that ends it at the test's end.
func connectStdio(t testing.TB, s *Server) (context.Context, *mcpsdk.ClientSession) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); inW.Close(); outR.Close() })
	go func() { _ = s.Run(ctx, StdioTransport(inR, outW)); outW.Close() }()
	cs, err := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "t"}, nil).Connect(ctx, &mcpsdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return ctx, cs
}

// issuer is a test authorization server: an ECDSA key, its JWKS served on
// loopback, and a token minter.
type issuer struct {
	key  *ecdsa.PrivateKey
	kid  string
	url  string // issuer identifier
	jwks string // JWKS URL
}

func newIssuer(t testing.TB) *issuer {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	is := &issuer{key: k, kid: "k1"}
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &k.PublicKey, KeyID: is.kid, Algorithm: "ES256", Use: "sig"}}}
	body, _ := json.Marshal(set)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	is.url = srv.URL
	is.jwks = srv.URL + "/jwks.json"
	return is
}

// tokenOpts adjust a minted token.
type tokenOpts struct {
	aud    string
	iss    string
	scope  string
	exp    time.Duration // from now; 0 means 1h
	noExp  bool
	noSub  bool
	signer *ecdsa.PrivateKey
}

func (is *issuer) token(t testing.TB, o tokenOpts) string {
	t.Helper()
	key := is.key
	if o.signer != nil {
		key = o.signer
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader(jose.HeaderKey("kid"), is.kid))
	if err != nil {
		t.Fatal(err)
	}
	iss := o.iss
	if iss == "" {
		iss = is.url
	}
	if o.exp == 0 {
		o.exp = time.Hour
	}
	c := jwt.Claims{Issuer: iss, Subject: "alice", Audience: jwt.Audience{o.aud}, IssuedAt: jwt.NewNumericDate(time.Now().Add(-time.Minute))}
	if o.noSub {
		c.Subject = ""
	}
	if !o.noExp {
		c.Expiry = jwt.NewNumericDate(time.Now().Add(o.exp))
	}
	tok, err := jwt.Signed(sig).Claims(c).Claims(map[string]any{"scope": o.scope}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// bearer is an http.RoundTripper adding a token.
type bearer struct {
	base  http.RoundTripper
	token string
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// waitExported waits until s exports tool: the server follows the
// registry's change events, so a provider added just before a call may
// not be exported yet (TestBigWholeFloatText failed so in a clean-clone
// run: "unknown tool").
func waitExported(t *testing.T, s *Server, tool string) {
	t.Helper()
	testutil.Eventually(t, tool+" exported", func() bool { return slices.Contains(s.Tools(), tool) })
}
