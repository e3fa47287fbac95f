package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// TestHexDigest compares hexDigest with encoding/hex on every byte value in
// every position and on digests.
func TestHexDigest(t *testing.T) {
	check := func(sum [32]byte) {
		t.Helper()
		var got [64]byte
		hexDigest(got[:], &sum)
		if want := hex.EncodeToString(sum[:]); string(got[:]) != want {
			t.Fatalf("hexDigest(%x) = %s", sum, got[:])
		}
	}
	for v := range 256 {
		var sum [32]byte
		for i := range sum {
			sum[i] = byte(v + i*37)
		}
		check(sum)
	}
	for i := range 1000 {
		check(sha256.Sum256([]byte{byte(i), byte(i >> 8)}))
	}
}

func FuzzHexDigest(f *testing.F) {
	f.Add(make([]byte, 32))
	f.Fuzz(func(t *testing.T, b []byte) {
		var sum [32]byte
		copy(sum[:], b)
		var got [64]byte
		hexDigest(got[:], &sum)
		if want := hex.EncodeToString(sum[:]); string(got[:]) != want {
			t.Fatalf("hexDigest(%x) = %s", sum, got[:])
		}
	})
}

// BenchmarkHexDigest compares hexDigest with hex.Encode on one digest.
func BenchmarkHexDigest(b *testing.B) {
	sum := sha256.Sum256([]byte("aios"))
	var dst [64]byte
	b.Run("hexDigest", func(b *testing.B) {
		for b.Loop() {
			hexDigest(dst[:], &sum)
		}
	})
	b.Run("hex.Encode", func(b *testing.B) {
		for b.Loop() {
			hex.Encode(dst[:], sum[:])
		}
	})
}
