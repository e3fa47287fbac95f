package discovery

import (
	"strings"
	"testing"
)

// A card member of the wrong JSON type is named by its JSON path (with the
// skill's index and id) and the JSON types, not by Go struct and field names.
func TestCardTypeErrorNamesPath(t *testing.T) {
	base := func(skills, caps string) string {
		return `{"adapter":{"id":"org.example.x","name":"X","version":"1.0.0","protocol_version":"0.3.0"},
"capabilities":` + caps + `,"skills":` + skills + `,"endpoints":{"rpc":"unix:///run/x.sock"}}`
	}
	for _, tc := range []struct{ card, want string }{
		{base(`[{"id":"a","name":"A","permission_level":"low"},{"id":"b","name":"B","permission_level":"low","examples":"x"}]`, `{}`),
			`skills[1](b).examples: want array, got string`},
		{base(`[]`, `{"streaming":"yes"}`), `capabilities.streaming: want boolean, got string`},
	} {
		_, err := ParseCard([]byte(tc.card), "c.json")
		if err == nil {
			t.Fatalf("card accepted, want %q", tc.want)
		}
		if !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "Go struct") {
			t.Errorf("error %q, want it to contain %q and no Go names", err, tc.want)
		}
	}
}

// A required member left out is said to be required, not shown as "".
func TestCardMissingRequiredSaysMissing(t *testing.T) {
	for _, tc := range []struct{ adapter, skill, want string }{
		{`{"id":"org.example.x","name":"X","version":"1.0.0"}`, `{"id":"a","name":"A","permission_level":"low"}`, `adapter.protocol_version: required, must not be empty`},
		{`{"id":"org.example.x","name":"X","protocol_version":"0.3.0"}`, `{"id":"a","name":"A","permission_level":"low"}`, `adapter.version: required, must not be empty`},
		{`{"id":"org.example.x","name":"X","version":"1.0.0","protocol_version":"0.3.0"}`, `{"id":"a","name":"A"}`, `skills[0](a).permission_level: required, must not be empty`},
	} {
		card := `{"adapter":` + tc.adapter + `,"capabilities":{},"skills":[` + tc.skill + `],"endpoints":{"rpc":"unix:///run/x.sock"}}`
		_, err := ParseCard([]byte(card), "c.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want it to contain %q", err, tc.want)
		}
	}
}
