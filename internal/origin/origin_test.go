package origin

import (
	"net/url"
	"testing"
)

func TestSame(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"https://a/x", "https://a/y", true},
		{"https://a/x", "https://a:443/y", true},
		{"http://a/x", "http://a:80/y", true},
		{"HTTPS://A/x", "https://a/y", true},
		{"https://a/x", "http://a/x", false},       // scheme: a downgrade
		{"https://a/x", "https://a:8443/x", false}, // port: another service
		{"https://a/x", "https://b/x", false},
		{"http://a:443/x", "https://a/x", false},
		{"http://[::1]:80/x", "http://[::1]/x", true},
	} {
		a, _ := url.Parse(c.a)
		b, _ := url.Parse(c.b)
		if got := Same(a, b); got != c.want {
			t.Errorf("Same(%s, %s) = %v, want %v", c.a, c.b, got, c.want)
		}
		if got := Same(b, a); got != c.want {
			t.Errorf("Same(%s, %s) = %v, want %v", c.b, c.a, got, c.want)
		}
	}
	if Same(nil, &url.URL{}) || Same(&url.URL{}, nil) {
		t.Error("a nil URL has no origin")
	}
}
