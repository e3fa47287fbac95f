package trust

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/aios-host/aios-host/abi"
)

// A JWK's nbf/exp far in the future (past what int64 seconds hold) must
// keep their meaning: nbf 1e20 is "not valid yet", exp 1e20 is "valid".
// Converting the float to int64 overflowed to the far past: the key was
// valid despite its nbf, and expired despite its exp.
func TestJWKFarFutureTimes(t *testing.T) {
	k := newKey(t, "ES256")
	signed, _ := SignCard(readCard(t), k)
	for _, tc := range []struct {
		member string
		value  float64
		want   error
	}{{"nbf", 1e20, ErrKeyExpired}, {"exp", 1e20, nil}, {"nbf", -1e20, nil}, {"exp", -1e20, ErrKeyExpired}} {
		b, _ := json.Marshal(k.PublicJWK())
		var m map[string]any
		_ = json.Unmarshal(b, &m)
		m[tc.member] = tc.value
		b, _ = json.Marshal(m)
		keys, err := ParseJWKS(b, abi.Verified, "mem")
		if err != nil {
			t.Fatal(err)
		}
		s := NewKeyStore(nil)
		s.Add(keys...)
		_, err = VerifyCard(context.Background(), signed, s)
		if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s %g: %v, want %v", tc.member, tc.value, err, tc.want)
		}
	}
}
