package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/aios-host/aios-host/audit"
)

func runAudit(c *cli, args []string) int {
	fs := c.flags("audit", "audit verify [--anchor SEQ:HASH] [--after SEQ:HASH] [FILE...]", `
Check an audit log: every record well-formed, in sequence, chained to the
one before, and unmodified. Without FILE it checks the configured log
(DATA/audit.jsonl) together with the files rotation split off it
(audit.<first>-<last>.jsonl, audit.max_bytes), oldest first, as one chain;
several FILEs are checked as one chain in the order given. Prints the
number of records and the anchor of the last one (SEQ:HASH; keep it
elsewhere), or the first bad line and why; exits 1 when the log fails.
With --anchor (an anchor printed earlier) it also fails when records were
cut from the end or the log was rewritten up to the anchored record, which
the chain alone cannot show. --after names the record before the first
file's first (when older rotated files were removed). See docs/audit.md.`)
	anchorFlag := fs.String("anchor", "", "an anchor `SEQ:HASH` printed by an earlier verify: the log must still hold that record")
	afterFlag := fs.String("after", "", "the anchor `SEQ:HASH` of the record before the first file's first record (default: the log starts at record 1)")
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 0 || pos[0] != "verify" {
		return c.usageError(fs, "want: audit verify [--anchor SEQ:HASH] [--after SEQ:HASH] [FILE...]")
	}
	var opts audit.VerifyOptions
	if *anchorFlag != "" {
		a, err := audit.ParseAnchor(*anchorFlag)
		if err != nil {
			return c.usageError(fs, err.Error())
		}
		opts.Anchor = &a
	}
	if *afterFlag != "" {
		a, err := audit.ParseAnchor(*afterFlag)
		if err != nil {
			return c.usageError(fs, "--after: %v", err)
		}
		opts.After = a
	}
	files := pos[1:]
	if len(files) == 0 {
		cfg, err := c.config()
		if err != nil {
			return c.fail(err)
		}
		path := cfg.AuditPath()
		rotated, err := audit.RotatedFiles(path)
		if err != nil {
			return c.fail(err)
		}
		for _, r := range rotated {
			files = append(files, r.Path)
		}
		if _, err := os.Stat(path); err == nil || len(files) == 0 {
			files = append(files, path)
		}
	}
	total, last, failed, err := audit.VerifyFiles(files, opts)
	if err != nil {
		var ve *audit.VerifyError
		if !errors.As(err, &ve) {
			return c.fail(fmt.Errorf("read %s: %w", failed, err))
		}
		fmt.Fprintf(c.stderr, "%s:%d: %s\n", failed, ve.Line, ve.Reason)
		if failed == files[0] && opts.After.Seq == 0 && strings.Contains(ve.Reason, "want 1:") {
			fmt.Fprintf(c.stderr, "(if the files before %s were removed on purpose, give --after with the anchor of the record before its first)\n", failed)
		}
		fmt.Fprintf(c.stdout, "FAIL: %s: %d records verified before line %d\n", failed, total, ve.Line)
		return exitFail
	}
	what := files[0]
	if len(files) > 1 {
		what = fmt.Sprintf("%d files (%s … %s)", len(files), files[0], files[len(files)-1])
	}
	if last.Hash == "" {
		fmt.Fprintf(c.stdout, "OK: %s: 0 records (empty log)\n", what)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "OK: %s: %d records, anchor %s\n", what, total, last)
	return exitOK
}
