package config

import (
	"strings"
	"testing"
)

// TestInferenceKeyEnvMustBeName: inference.api_key_env holding the key
// itself (pasted where the variable's name goes) or "$NAME" was taken as
// the name of a variable that is not set: the host sent no key, the
// backend answered 401, and the host's error named the "variable", the
// key, to the tool, its caller and the audit log. A value that is no
// variable name is refused at load, without quoting it.
func TestInferenceKeyEnvMustBeName(t *testing.T) {
	for _, tc := range []struct{ value, want string }{
		{"sk-proj-AbC123xyz789", "not the name of an environment variable"},
		{"Bearer sk-AbC123xyz789", "not the name of an environment variable"},
		{"9KEY", "not the name of an environment variable"},
		{"$OPENAI_API_KEY", "write its name, OPENAI_API_KEY, without the $"},
		{"${OPENAI_API_KEY}", "write its name, OPENAI_API_KEY, without the $"},
	} {
		_, err := Parse([]byte("inference:\n  url: http://127.0.0.1:8080\n  api_key_env: \""+tc.value+"\"\n"), "c.yaml")
		if err == nil || !strings.Contains(err.Error(), "c.yaml:3: inference.api_key_env:") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("api_key_env %q: %v; want it refused saying %q", tc.value, err, tc.want)
			continue
		}
		if !strings.HasPrefix(tc.value, "$") && strings.Contains(err.Error(), tc.value) {
			t.Errorf("api_key_env %q: the error quotes the value, which may be the key: %v", tc.value, err)
		}
	}
	for _, ok := range []string{"AIOS_INFERENCE_API_KEY", "_key", "openai_api_key2"} {
		if _, err := Parse([]byte("inference:\n  api_key_env: "+ok+"\n"), "c.yaml"); err != nil {
			t.Errorf("api_key_env %q: %v", ok, err)
		}
	}
}
