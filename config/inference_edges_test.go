package config

import (
	"strings"
	"testing"
)

// TestAPIKeyEnvNotAKey: inference.api_key_env takes the name of the
// variable holding the key; the key itself written there (sk-…), or a
// name no shell can set ("OPENAI KEY"), was taken: no key was sent, the
// backend's 401 said nothing of the setting, and the key sat in the file.
// It is refused without echoing the value; a variable's name is taken.
func TestAPIKeyEnvNotAKey(t *testing.T) {
	const key = "sk-proj-Zx81kLmQ0aB7"
	for _, v := range []string{key, "OPENAI KEY", "1KEY", "MY-KEY"} {
		_, err := Parse([]byte("inference:\n  url: http://127.0.0.1:11434/v1\n  api_key_env: \""+v+"\"\n"), "c.yaml")
		want := "c.yaml:3: inference.api_key_env: is not the name of an environment variable"
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s…", v, err, want)
		} else if strings.Contains(err.Error(), v) {
			t.Errorf("%q: the error echoes the value: %v", v, err)
		}
	}
	for _, v := range []string{"OPENAI_API_KEY", "_key", "AZURE_OPENAI_KEY2"} {
		c, err := Parse([]byte("inference:\n  api_key_env: "+v+"\n"), "c.yaml")
		if err != nil || c.Inference.APIKeyEnv != v {
			t.Errorf("%q: %v", v, err)
		}
	}
	// Empty: no key is sent (a local server needs none).
	if _, err := Parse([]byte("inference:\n  api_key_env: \"\"\n"), "c.yaml"); err != nil {
		t.Errorf("empty: %v", err)
	}
}

// TestAPIKeyHeaderAuthorizationMisspelt: inference.api_key_header:
// Authorisation (British spelling), or Authorizaton, was taken: the key
// went, whole, in a header no backend reads, and every completion was
// answered 401. A name within two letters of Authorization is refused
// with a did-you-mean; Authorization in any case, and headers of other
// names (api-key, X-Api-Key), are taken.
func TestAPIKeyHeaderAuthorizationMisspelt(t *testing.T) {
	for _, h := range []string{"Authorisation", "authorizaton", "Authorizations"} {
		_, err := Parse([]byte("inference:\n  api_key_header: "+h+"\n"), "c.yaml")
		want := `c.yaml:2: inference.api_key_header: "` + h + `" is no header a backend reads the key from; did you mean Authorization`
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s…", h, err, want)
		}
	}
	for _, h := range []string{"Authorization", "authorization", "api-key", "X-Api-Key", "Ocp-Apim-Subscription-Key"} {
		if _, err := Parse([]byte("inference:\n  api_key_header: "+h+"\n"), "c.yaml"); err != nil {
			t.Errorf("%q: %v", h, err)
		}
	}
}

// TestInferenceURLThatCannotWork: an inference.url with a space at its
// end (quoted, pasted) went into the path, POST /v1 /v1/chat/completions,
// answered 404; one with a port past 65535 failed at the first
// completion. Both are refused when the file is read, without the url's
// password; a url with a query, a fragment or a password is taken.
func TestInferenceURLThatCannotWork(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"http://127.0.0.1:11434/v1 ", `c.yaml:2: inference.url: "http://127.0.0.1:11434/v1%20" holds white space, which no URL does`},
		{"http://me:s3cret@llm.example/v1 ", `c.yaml:2: inference.url: "http://me:xxxxx@llm.example/v1%20" holds white space`},
		{"http://127.0.0.1:99999/v1", `c.yaml:2: inference.url: "http://127.0.0.1:99999/v1": port 99999 is not a number from 1 to 65535`},
		{"https://llm.example:0", `port 0 is not a number from 1 to 65535`},
	} {
		_, err := Parse([]byte("inference:\n  url: \""+tc.url+"\"\n"), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %s…", tc.url, err, tc.want)
		} else if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: the password is echoed: %v", tc.url, err)
		}
	}
	for _, u := range []string{"http://127.0.0.1:11434/v1", "https://x.openai.azure.com/openai/deployments/d/chat/completions?api-version=2024-06-01", "http://me:pw@127.0.0.1/v1", "HTTP://llm.example"} {
		if _, err := Parse([]byte("inference:\n  url: \""+u+"\"\n"), "c.yaml"); err != nil {
			t.Errorf("%q: %v", u, err)
		}
	}
}
