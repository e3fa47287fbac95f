// Package conformance holds the cross-runtime conformance harness (its
// tests): one table of behaviours that every runtime's conformance provider
// must pass, run by `go test ./conformance/ -run TestConformance -v`, which
// prints one `RUNTIME BEHAVIOUR PASS|FAIL` line per runtime × behaviour.
// See README.md for the contract.
//
// Each runtime adds itself in its own conformance/<runtime>_test.go. The
// package has no non-test code; it must never be imported.
package conformance
