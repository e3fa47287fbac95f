package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/aios-host/aios-host/audit"
)

func runAudit(c *cli, args []string) int {
	fs := c.flags("audit", "audit verify [--anchor SEQ:HASH] [FILE]", `
Check an audit log (default: the configured one, DATA/audit.jsonl): every
record well-formed, in sequence, chained to the one before, and unmodified.
Prints the number of records and the anchor of the last one (SEQ:HASH; keep
it elsewhere), or the first bad line and why; exits 1 when the log fails.
With --anchor (an anchor printed earlier) it also fails when records were
cut from the end or the log was rewritten up to the anchored record, which
the chain alone cannot show. See docs/audit.md.`)
	anchorFlag := fs.String("anchor", "", "an anchor `SEQ:HASH` printed by an earlier verify: the log must still hold that record")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 0 || pos[0] != "verify" || len(pos) > 2 {
		return c.usageError(fs, "want: audit verify [--anchor SEQ:HASH] [FILE]")
	}
	var anchor *audit.Anchor
	if *anchorFlag != "" {
		a, err := audit.ParseAnchor(*anchorFlag)
		if err != nil {
			return c.usageError(fs, err.Error())
		}
		anchor = &a
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
	var n int
	var head string
	if anchor != nil {
		n, head, err = audit.VerifyAnchored(f, *anchor)
	} else {
		n, head, err = audit.Head(f)
	}
	if err != nil {
		var ve *audit.VerifyError
		if errors.As(err, &ve) {
			fmt.Fprintf(c.stderr, "%s:%d: %s\n", path, ve.Line, ve.Reason)
			fmt.Fprintf(c.stdout, "FAIL: %s: %d records verified before line %d\n", path, n, ve.Line)
			return exitFail
		}
		return c.fail(fmt.Errorf("read %s: %w", path, err))
	}
	if head == "" {
		fmt.Fprintf(c.stdout, "OK: %s: 0 records (empty log)\n", path)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "OK: %s: %d records, anchor %d:%s\n", path, n, n, head)
	return exitOK
}
