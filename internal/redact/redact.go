// Package redact takes a secret (a bearer token the host sends to a
// server) out of the errors that server's answers turn into, before they
// reach a tool's caller or the audit log.
package redact

import (
	"fmt"
	"strings"

	"github.com/aios-host/aios-host/abi"
)

// minLen is the shortest secret replaced: a shorter one would cut words
// out of messages rather than secrets.
const minLen = 4

// Error returns err with every occurrence of secret in its message and in
// the strings of its data replaced by repl; err itself (not a copy) when
// it holds none. Any error becomes an *abi.ToolError (code def) when it
// had to change.
func Error(err error, secret, repl string) error {
	if err == nil || len(strings.TrimSpace(secret)) < minLen {
		return err
	}
	te := abi.AsToolError(err, abi.ProviderError)
	if !strings.Contains(te.Message, secret) && (te.Data == nil || !strings.Contains(fmt.Sprint(te.Data), secret)) {
		return err
	}
	out := *te
	out.Message = strings.ReplaceAll(te.Message, secret, repl)
	out.Data = value(te.Data, secret, repl)
	return &out
}

// value replaces secret in every string of v (error data: JSON values).
func value(v any, secret, repl string) any {
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		return strings.ReplaceAll(x, secret, repl)
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[strings.ReplaceAll(k, secret, repl)] = value(e, secret, repl)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = value(e, secret, repl)
		}
		return a
	}
	if strings.Contains(fmt.Sprint(v), secret) {
		return repl // a value of another type quoting it: replaced whole
	}
	return v
}
