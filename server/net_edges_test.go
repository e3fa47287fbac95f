package server

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/runtimes/native"
	"github.com/aios-host/aios-host/server/jsonrpc"
	"github.com/aios-host/aios-host/trust"

	dto "github.com/prometheus/client_model/go"
)

// A subscribe whose connection closes before the handler runs must not
// leave a subscription (a goroutine, a registry subscriber, the
// aios_subscribers gauge) behind.
func TestSubscribeThenCloseLeaks(t *testing.T) {
	ts := newTestServer(t, "", false)
	for i := 0; i < 100; i++ {
		c, err := net.Dial("unix", ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"aios/registry.subscribe"}` + "\n"))
		_ = c.(*net.UnixConn).CloseWrite()
		_, _ = bufio.NewReader(c).ReadString('\n')
		c.Close()
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		var m dto.Metric
		_ = ts.s.metrics.subscribers.Write(&m)
		n := m.GetGauge().GetValue()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v subscriptions left after every connection closed", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A client that sends its request and then shuts down its write side
// (`nc -N`, a shell pipe into socat) still wants the answer: half-closing
// is not hanging up.
func TestHalfCloseKeepsAnswer(t *testing.T) {
	ts := newTestServer(t, "", false)
	for i := 0; i < 30; i++ {
		c, err := net.Dial("unix", ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":1}}}` + "\n"))
		_ = c.(*net.UnixConn).CloseWrite()
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := bufio.NewReader(c).ReadString('\n')
		c.Close()
		if err != nil || !strings.Contains(line, `"result"`) {
			t.Fatalf("try %d: %q, %v", i, line, err)
		}
	}
}

// A slow call answers a half-closed peer; a peer that hangs up has its
// calls cancelled, half-closed first or not.
func TestHalfCloseSlowCallAndHangUp(t *testing.T) {
	ts := newTestServer(t, "", false)
	ended := make(chan host.CallStats, 4)
	defer ts.h.OnCall(func(st host.CallStats) { ended <- st })()
	for _, half := range []bool{false, true} {
		c, err := net.Dial("unix", ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}` + "\n"))
		ts.waitSlow(t, 1)
		if half {
			_ = c.(*net.UnixConn).CloseWrite()
			time.Sleep(300 * time.Millisecond)
			select {
			case st := <-ended:
				t.Fatalf("half-closed: the call ended (%s) while the peer waits for it", st.Code)
			default:
			}
		}
		c.Close()
		select {
		case st := <-ended:
			if st.Code != abi.Cancelled {
				t.Fatalf("half=%v: call ended with %q, want Cancelled", half, st.Code)
			}
		case <-time.After(3 * time.Second):
			t.Fatalf("half=%v: the call of a peer that hung up was not cancelled", half)
		}
	}
}

// tools/list (without all_versions) describes the version a tools/call
// without a version reaches: the default (newest non-deprecated release),
// not a pre-release or a deprecated version above it. With all_versions
// the versions are in SemVer order.
func TestToolsListDefaultVersion(t *testing.T) {
	ts := newTestServer(t, "", false)
	p := native.New(abi.ProviderInfo{ID: "org.test.multi", Name: "multi", Version: "1.0.0"})
	for _, v := range []struct {
		version    string
		deprecated bool
	}{{"1.9.0", false}, {"1.10.0", false}, {"2.0.0-beta.1", false}, {"3.0.0", true}} {
		p.MustRegister(abi.ToolDef{Name: "multi", Version: v.version, Deprecated: v.deprecated},
			func(context.Context, any, abi.Env) (any, error) { return v.version, nil })
	}
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, ts)
	var called jsonrpc.ToolsCallResult
	if err := c.Call(context.Background(), "tools/call", map[string]any{"name": "multi"}, &called); err != nil {
		t.Fatal(err)
	}
	var list struct{ Tools []ToolInfo }
	if err := c.Call(context.Background(), "tools/list", nil, &list); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, ti := range list.Tools {
		if ti.Name == "multi" {
			listed = append(listed, ti.Version)
		}
	}
	if len(listed) != 1 || listed[0] != called.Version {
		t.Fatalf("tools/list shows multi %v; tools/call without a version runs %s", listed, called.Version)
	}
	if err := c.Call(context.Background(), "tools/list", map[string]any{"all_versions": true}, &list); err != nil {
		t.Fatal(err)
	}
	listed = nil
	for _, ti := range list.Tools {
		if ti.Name == "multi" {
			listed = append(listed, ti.Version)
		}
	}
	if want := []string{"1.9.0", "1.10.0", "2.0.0-beta.1", "3.0.0"}; !slices.Equal(listed, want) {
		t.Fatalf("all_versions lists %v, want %v", listed, want)
	}
}

// The auth scheme is case-insensitive (RFC 9110 §11.1): "bearer TOKEN"
// is a bearer token, as /mcp already accepts.
func TestBearerSchemeCaseInsensitive(t *testing.T) {
	ts := newTestServer(t, "", true)
	for _, scheme := range []string{"Bearer", "bearer", "BEARER"} {
		req, _ := http.NewRequest(http.MethodPost, ts.url+"/rpc", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", scheme+" "+testToken)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: HTTP %d", scheme, resp.StatusCode)
		}
	}
}

// The host card's skill for a name describes the version a call without a
// version reaches (the default), not a newer pre-release or deprecated one.
func TestHostCardDefaultVersion(t *testing.T) {
	ts := newTestServer(t, "", false)
	p := native.New(abi.ProviderInfo{ID: "org.test.multi", Name: "multi", Version: "1.0.0"})
	for _, v := range []struct {
		version    string
		deprecated bool
	}{{"1.9.0", false}, {"1.10.0", false}, {"2.0.0-beta.1", false}, {"3.0.0", true}} {
		p.MustRegister(abi.ToolDef{Name: "multi", Version: v.version, Deprecated: v.deprecated, MCPExportable: true},
			func(context.Context, any, abi.Env) (any, error) { return v.version, nil })
	}
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	raw, err := ts.s.HostCard()
	if err != nil {
		t.Fatal(err)
	}
	var card struct {
		Skills []struct{ ID, Version string }
	}
	_ = json.Unmarshal(raw, &card)
	for _, sk := range card.Skills {
		if sk.ID == "multi" && sk.Version != "1.10.0" {
			t.Fatalf("host card lists multi %s; a call without a version runs 1.10.0", sk.Version)
		}
	}
}

// timeout_ms past what a time.Duration holds overflowed: the call timed
// out at once ("deadline ... passed before it started"). A huge timeout
// is a long one (the host caps it at limits.max_deadline).
func TestHugeTimeoutMS(t *testing.T) {
	ts := newTestServer(t, "", false)
	c := dial(t, ts)
	for _, ms := range []string{"9223372036854775807", "18446744073709551", "9223372036854"} {
		var res jsonrpc.ToolsCallResult
		err := c.Call(context.Background(), "tools/call", json.RawMessage(`{"name":"echo","arguments":{"value":1},"timeout_ms":`+ms+`}`), &res)
		if err != nil {
			t.Errorf("timeout_ms %s: %v", ms, err)
		}
	}
}

// Once the answer to aios/registry.unsubscribe is on the wire, no
// notification of that subscription follows it.
func TestNoNotificationAfterUnsubscribe(t *testing.T) {
	ts := newTestServer(t, "", false)
	defer churnRegistry(ts)()
	for i := 0; i < 30; i++ {
		c, err := net.Dial("unix", ts.sock)
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(c)
		_, _ = c.Write([]byte(`{"jsonrpc":"2.0","id":"s","method":"aios/registry.subscribe"}` + "\n"))
		var sub string
		for sub == "" {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			var m struct {
				ID     string
				Result struct{ Subscription string }
			}
			_ = json.Unmarshal([]byte(line), &m)
			if m.ID == "s" {
				sub = m.Result.Subscription
			}
		}
		time.Sleep(5 * time.Millisecond)
		_, _ = c.Write([]byte(`{"jsonrpc":"2.0","id":"u","method":"aios/registry.unsubscribe","params":{"subscription":"` + sub + `"}}` + "\n"))
		answered := false
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				break
			}
			if strings.Contains(line, `"id":"u"`) {
				answered = true
				_ = c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
			} else if answered && strings.Contains(line, `"subscription":"`+sub+`"`) {
				t.Fatalf("try %d: notification after the unsubscribe answer: %s", i, line)
			}
		}
		c.Close()
		if !answered {
			t.Fatal("unsubscribe not answered")
		}
	}
}

// A request is untrusted input too: 7 MiB of [{},{},…] in a tools/call's
// arguments decode to hundreds of MiB (and 32 of them at once per
// connection to gigabytes). A message whose decoded size would pass the
// request decode budget is refused (TooLarge) before it is decoded.
func TestRequestDecodeBudget(t *testing.T) {
	ts := newTestServer(t, "", false)
	ts.s.cfg.ReadTimeout = 60 * time.Second // a 7 MiB line
	var b []byte
	b = append(b, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"value":[`...)
	for i := 0; i < 2_500_000; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{', '}')
	}
	b = append(b, "]}}}\n"...)
	c, err := net.Dial("unix", ts.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.TotalAlloc
	go func() { _, _ = c.Write(b) }()
	_ = c.SetReadDeadline(time.Now().Add(60 * time.Second))
	line, err := bufio.NewReaderSize(c, 1<<20).ReadString('\n')
	runtime.ReadMemStats(&ms)
	if got := ms.TotalAlloc - before; err != nil || !strings.Contains(line, `"code":-32012`) || got > 150<<20 {
		if len(line) > 300 {
			line = line[:300]
		}
		t.Fatalf("%v %q after allocating %d MiB", err, line, got>>20)

	}
}

// GET /.well-known/aios-adapter.json needs no token, and signing the card
// costs milliseconds with an RSA key (5 ms measured): a card whose content
// did not change is not signed again (an ECDSA signature differs on each
// signing, so equal bytes show it was not); a change is signed anew.
func TestHostCardSignedOncePerChange(t *testing.T) {
	ts := newTestServer(t, "", false)
	k, err := trust.GenerateKey("ES256", "k")
	if err != nil {
		t.Fatal(err)
	}
	ts.s.SetSigningKey(k)
	a, _ := ts.s.HostCard()
	b, _ := ts.s.HostCard()
	if string(a) != string(b) {
		t.Fatal("the unchanged host card was signed again")
	}
	p := native.New(abi.ProviderInfo{ID: "org.test.more", Name: "more", Version: "1.0.0"})
	p.MustRegister(abi.ToolDef{Name: "more-tool", MCPExportable: true}, func(context.Context, any, abi.Env) (any, error) { return nil, nil })
	if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: abi.System}); err != nil {
		t.Fatal(err)
	}
	c, _ := ts.s.HostCard()
	if !strings.Contains(string(c), "more-tool") {
		t.Fatal("the host card did not follow the registry")
	}
	if _, err := trust.VerifyCard(context.Background(), c, storeOf(k)); err != nil {
		t.Fatal(err)
	}
}

func storeOf(k trust.SigningKey) *trust.KeyStore {
	s := trust.NewKeyStore(nil)
	s.Add(&trust.Key{JWK: k.PublicJWK(), Trust: abi.Verified, Source: "test"})
	return s
}

// churnRegistry adds and removes a provider in a loop until the returned
// function is called (and returns once the loop has ended).
func churnRegistry(ts *testServer) (stop func()) {
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		p := native.New(abi.ProviderInfo{ID: "org.test.churn", Name: "churn", Version: "1.0.0"})
		p.MustRegister(abi.ToolDef{Name: "churn"}, func(context.Context, any, abi.Env) (any, error) { return nil, nil })
		for {
			select {
			case <-quit:
				return
			default:
			}
			_ = ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test"})
			_ = ts.h.RemoveProvider("org.test.churn")
		}
	}()
	return func() { close(quit); <-done }
}

// TestHostCardLeavesOutUntrustedClaims: an Untrusted provider (an unsigned
// file, a bridged MCP server) marking its tools mcp_exportable does not get
// them into the host card, which the host's key signs and peers register
// at that key's trust; the operator can still export one by name
// (server.export). A Community provider's claim is kept.
func TestHostCardLeavesOutUntrustedClaims(t *testing.T) {
	for _, tc := range []struct {
		extra string
		want  string
	}{{"", "community-tool"}, {"  export: [untrusted-named]\n", "community-tool untrusted-named"}} {
		ts := newTestServer(t, tc.extra, false)
		add := func(id string, trust abi.TrustLevel, tools ...string) {
			p := native.New(abi.ProviderInfo{ID: id, Name: id, Version: "1.0.0"})
			for _, name := range tools {
				p.MustRegister(abi.ToolDef{Name: name, Version: "1.0.0", MCPExportable: true},
					func(context.Context, any, abi.Env) (any, error) { return nil, nil })
			}
			if err := ts.h.AddProvider(context.Background(), p, host.ProviderMeta{Source: "test", Trust: trust}); err != nil {
				t.Fatal(err)
			}
		}
		add("org.test.unsigned", abi.Untrusted, "untrusted-claim", "untrusted-named")
		add("org.test.folder", abi.Community, "community-tool")
		raw, err := ts.s.HostCard()
		if err != nil {
			t.Fatal(err)
		}
		var card struct{ Skills []struct{ ID string } }
		if err := json.Unmarshal(raw, &card); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, sk := range card.Skills {
			if strings.HasSuffix(sk.ID, "-claim") || strings.HasSuffix(sk.ID, "-named") || strings.HasSuffix(sk.ID, "-tool") {
				got = append(got, sk.ID)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("export %q: card skills %v, want %s", tc.extra, got, tc.want)
		}
	}
}

// TestMetricsAuth: /metrics names every tool and provider, so it asks for
// a bearer token from any peer but loopback by default (metrics_auth:
// loopback), from every peer with token, from none with none.
func TestMetricsAuth(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		remote string
		token  string
		want   int
	}{
		{"", "127.0.0.1:5000", "", 200},
		{"", "[::1]:5000", "", 200},
		{"", "192.0.2.7:5000", "", 401},
		{"", "192.0.2.7:5000", testToken, 200},
		{"token", "127.0.0.1:5000", "", 401},
		{"token", "127.0.0.1:5000", testToken, 200},
		{"token", "192.0.2.7:5000", "wrong", 401},
		{"none", "192.0.2.7:5000", "", 200},
		// An agent whose methods leave out "metrics" may not read them
		// with its token; a loopback peer needs none.
		{"", "192.0.2.7:5000", listerToken, 403},
		{"token", "127.0.0.1:5000", listerToken, 403},
		{"", "127.0.0.1:5000", listerToken, 200},
	} {
		extra := ""
		if tc.mode != "" {
			extra = "  metrics_auth: " + tc.mode + "\n"
		}
		ts := newTestServer(t, extra, false)
		r := httptest.NewRequest("GET", "/metrics", nil)
		r.RemoteAddr = tc.remote
		r.Host = tc.remote // (a loopback peer names a loopback host: TestMetricsLoopbackNotRebound)
		if tc.token != "" {
			r.Header.Set("Authorization", "Bearer "+tc.token)
		}
		w := httptest.NewRecorder()
		ts.s.Handler().ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("metrics_auth %q from %s with token %q: HTTP %d, want %d", tc.mode, tc.remote, tc.token, w.Code, tc.want)
		}
		if w.Code == 200 && !strings.Contains(w.Body.String(), "aios_tools") {
			t.Errorf("metrics body lacks aios_tools: %.200s", w.Body.String())
		}
	}
	if _, err := LoadConfig(mustParse(t, "server: {metrics_auth: sometimes}\n")); err == nil || !strings.Contains(err.Error(), "want loopback, token or none") {
		t.Fatalf("bad metrics_auth: %v", err)
	}
}

func mustParse(t *testing.T, doc string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(doc), "t.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
