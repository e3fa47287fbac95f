package trust

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// TestJWKSRedirectToPlainHTTPRefused: a plain http jwks_url to another
// machine is warned of at start (TestPlainHTTPJWKSURLWarned), but an
// https one that redirected there was followed without a word, and the
// keys that came over plain http — which whoever is on the network path
// could have swapped — verified cards at the https entry's trust. The
// redirect is refused, naming both URLs; a redirect to https elsewhere is
// still followed.
func TestJWKSRedirectToPlainHTTPRefused(t *testing.T) {
	signer, err := GenerateKey("EdDSA", "hub-key")
	if err != nil {
		t.Fatal(err)
	}
	jwks := mustJWKS(t, signer)
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(jwks) }))
	defer plain.Close()
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/to-http":
			http.Redirect(w, r, "http://keys.example.test/jwks.json", http.StatusFound)
		case "/to-https":
			http.Redirect(w, r, "/jwks.json", http.StatusFound)
		default:
			_, _ = w.Write(jwks)
		}
	}))
	defer tls.Close()
	// keys.example.test (another machine) is answered by the plain server.
	tr := tls.Client().Transport.(*http.Transport).Clone()
	var d net.Dialer
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == "keys.example.test:80" {
			addr = plain.Listener.Addr().String()
		}
		return d.DialContext(ctx, network, addr)
	}
	client := &http.Client{Transport: tr}
	card, err := SignCard([]byte(`{"adapter":{"id":"org.example.a","name":"A","version":"1.0.0","protocol_version":"0.3.0"}}`), signer)
	if err != nil {
		t.Fatal(err)
	}

	store := NewKeyStore(client)
	store.AddJWKSURL(tls.URL+"/to-http", abi.Verified)
	v, err := VerifyCard(context.Background(), card, store)
	if err == nil {
		t.Fatalf("keys fetched over plain http after an https redirect verified the card at %s", v.Trust)
	}
	if !errors.Is(err, ErrKeyFetch) || !strings.Contains(err.Error(), tls.URL+"/to-http") || !strings.Contains(err.Error(), "http://keys.example.test/jwks.json") {
		t.Errorf("err = %v, want ErrKeyFetch naming the jwks_url and the plain http URL it redirected to", err)
	}

	store = NewKeyStore(client)
	store.AddJWKSURL(tls.URL+"/to-https", abi.Verified)
	if _, err := VerifyCard(context.Background(), card, store); err != nil {
		t.Errorf("a redirect to https: %v", err)
	}
	// A plain http jwks_url to another machine (warned of at start) is
	// fetched as given.
	store = NewKeyStore(client)
	store.AddJWKSURL("http://keys.example.test/jwks.json", abi.Verified)
	if _, err := VerifyCard(context.Background(), card, store); err != nil {
		t.Errorf("a plain http jwks_url: %v", err)
	}
}
