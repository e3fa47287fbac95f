package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/aios-host/aios-host/audit"
)

func runAudit(c *cli, args []string) int {
	fs := c.flags("audit", "audit verify [FILE]", `
Check an audit log (default: the configured one, DATA/audit.jsonl): every
record well-formed, in sequence, chained to the one before, and unmodified.
Prints the number of records and the hash of the last one (keep it elsewhere
to detect later truncation), or the first bad line and why; exits 1 when the
log fails. See docs/audit.md.`)
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 0 || pos[0] != "verify" || len(pos) > 2 {
		return c.usageError(fs, "want: audit verify [FILE]")
	}
	path := ""
	if len(pos) == 2 {
		path = pos[1]
	} else {
		cfg, err := c.config()
		if err != nil {
			return c.fail(err)
		}
		path = cfg.AuditPath()
	}
	f, err := os.Open(path)
	if err != nil {
		return c.fail(err)
	}
	defer f.Close()
	n, head, err := audit.Head(f)
	if err != nil {
		var ve *audit.VerifyError
		if errors.As(err, &ve) {
			fmt.Fprintf(c.stderr, "%s:%d: %s\n", path, ve.Line, ve.Reason)
			fmt.Fprintf(c.stdout, "FAIL: %s: %d records verified before line %d\n", path, n, ve.Line)
			return exitFail
		}
		return c.fail(fmt.Errorf("read %s: %w", path, err))
	}
	fmt.Fprintf(c.stdout, "OK: %s: %d records, head %s\n", path, n, orNone(head))
	return exitOK
}

func orNone(s string) string {
	if s == "" {
		return "(empty log)"
	}
	return s
}
