package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/audit"
	"github.com/aios-host/aios-host/internal/editdist"
	"github.com/aios-host/aios-host/internal/fsperm"
	"github.com/aios-host/aios-host/trust"
)

// anchorJWSType is the "typ" of a signed audit anchor.
const anchorJWSType = "aios-audit-anchor+jws"

// signedAnchor is the payload of a signed audit anchor.
type signedAnchor struct {
	Log      string `json:"log"`
	Seq      uint64 `json:"seq"`
	Hash     string `json:"hash"`
	SignedAt string `json:"signed_at"`
}

func runAudit(c *cli, args []string) int {
	fs := c.flags("audit", "audit verify|anchor|show [flags] [FILE...]", `
audit verify: check an audit log: every record well-formed, in sequence,
chained to the one before, and unmodified. Without FILE it checks the
configured log (DATA/audit.jsonl) together with the files rotation split off
it (audit.<first>-<last>.jsonl, audit.max_bytes), oldest first, as one
chain; several FILEs are checked as one chain in the order given. Prints the
number of records and the anchor of the last one (SEQ:HASH; keep it
elsewhere), or the first bad line and why; exits 1 when the log fails.
With --anchor (an anchor printed earlier) or --signed-anchor and --jwks (one
written by audit anchor) it also fails when records were cut from the end or
the log was rewritten up to the anchored record, which the chain alone
cannot show. --after names the record before the first file's first (when
older rotated files were removed); without FILE, when the host deleted them
(audit.max_files), the anchor it kept in audit.pruned.jsonl is taken.

audit anchor --key FILE: verify the log as above, then write its last
record's anchor signed with the key (a compact JWS, typ
aios-audit-anchor+jws; keys from aios-host keygen) to standard output or
--out (a file there is replaced whole, by a new one fsynced and renamed
over it). Keep it away from the host; audit verify --signed-anchor checks it.

audit show: verify the log as above and print its records as a table (SEQ,
TIME, CALLER, PRINCIPAL, TOOL@VERSION, OUTCOME, LATENCY, CALL, PARENT), or
with --json as the log has them, selected by --tool, --caller, --principal, --remote,
--session, --outcome, --refused, --call, --since and --until (all must match), the
last --limit of them. Records from a line that fails verification on are
not shown, and it exits 1.
See docs/audit.md.`)
	anchorFlag := nonEmptyString(fs, "anchor", "verify: an anchor `SEQ:HASH` printed by an earlier verify: the log must still hold that record")
	afterFlag := nonEmptyString(fs, "after", "the anchor `SEQ:HASH` of the record before the first file's first record (default: the log starts at record 1)")
	signedFlag := nonEmptyPathString(fs, "signed-anchor", "verify: a signed anchor `file` written by audit anchor (needs --jwks)")
	jwksFlag := nonEmptyPathString(fs, "jwks", "verify: the JWKS `file` (keygen's jwks.json) that checks --signed-anchor")
	keyFlag := pathString(fs, "key", "anchor: the private key `file` (PEM, from keygen)")
	kidFlag := nonEmptyString(fs, "kid", "anchor: key `id` (default: the kid of the matching key in the jwks.json beside the key file, as keygen wrote it, else the key's RFC 7638 thumbprint)")
	outFlag := nonEmptyPathString(fs, "out", "anchor: write the signed anchor to `file` instead of standard output (\"-\": standard output)")
	show := addShowFlags(fs)
	pos, code, ok := c.parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) == 1 && pos[0] == "help" { // as `aios-host help audit`
		return runAudit(c, []string{"--help"})
	}
	if len(pos) > 0 && pos[0] != "verify" && pos[0] != "anchor" && pos[0] != "show" {
		meant := ""
		if near := editdist.Closest(pos[0], []string{"verify", "anchor", "show"}, editdist.Limit(pos[0])); near != "" {
			meant = fmt.Sprintf(" (did you mean %q?)", near)
		}
		return c.usageError(fs, "unknown audit sub-command %q%s (want verify, anchor or show)", pos[0], meant)
	}
	if len(pos) == 0 {
		return c.usageError(fs, "want: audit verify [--anchor SEQ:HASH | --signed-anchor FILE --jwks FILE] [--after SEQ:HASH] [FILE...], audit anchor --key FILE [--out FILE] [FILE...], or audit show [--tool P] [--caller A] [--principal P] [--session S] [--remote ADDR] [--outcome O] [--refused] [--call ID] [--since T] [--until T] [--limit N] [--json] [FILE...]")
	}
	if given := show.set(fs); pos[0] != "show" && len(given) > 0 {
		return c.usageError(fs, "only audit show takes %s", strings.Join(given, ", "))
	}
	sub := pos[0]
	var opts audit.VerifyOptions
	signedLog := "" // the log a --signed-anchor names
	if *afterFlag != "" {
		a, err := audit.ParseAnchor(*afterFlag)
		if err != nil {
			return c.usageError(fs, "--after: %v", err)
		}
		opts.After = a
	}
	var key trust.SigningKey
	var filter auditFilter
	switch sub {
	case "show":
		if *keyFlag != "" || *outFlag != "" || *kidFlag != "" || *signedFlag != "" || *jwksFlag != "" || *anchorFlag != "" {
			return c.usageError(fs, "audit show takes --after, not --key, --kid, --out, --anchor, --signed-anchor or --jwks")
		}
		// A bad filter value is a bad command line (exit 2), not a log
		// that fails verification (exit 1).
		var err error
		if filter, err = show.filter(time.Now()); err != nil {
			return c.usageError(fs, "%v", err)
		}
	case "verify":
		if *keyFlag != "" || *outFlag != "" || *kidFlag != "" {
			return c.usageError(fs, "--key, --kid and --out belong to audit anchor")
		}
		if *anchorFlag != "" && *signedFlag != "" {
			return c.usageError(fs, "give --anchor or --signed-anchor, not both")
		}
		if (*signedFlag == "") != (*jwksFlag == "") {
			return c.usageError(fs, "--signed-anchor and --jwks go together")
		}
		if *anchorFlag != "" {
			a, err := audit.ParseAnchor(*anchorFlag)
			if err != nil {
				return c.usageError(fs, "--anchor: %v", err)
			}
			opts.Anchor = &a
		}
		if *signedFlag != "" {
			a, log, err := readSignedAnchor(*signedFlag, *jwksFlag)
			if err != nil {
				return c.fail(err)
			}
			opts.Anchor, signedLog = &a, log
		}
	case "anchor":
		if *anchorFlag != "" || *signedFlag != "" || *jwksFlag != "" {
			return c.usageError(fs, "--anchor, --signed-anchor and --jwks belong to audit verify")
		}
		if *keyFlag == "" {
			return c.usageError(fs, "audit anchor needs --key FILE (a private key from aios-host keygen)")
		}
		var err error
		if key, err = loadSigningKey(*keyFlag, *kidFlag); err != nil {
			return c.fail(err)
		}
	}
	files := slices.Clone(pos[1:])
	// "-" is standard input (zcat audit.1.jsonl.gz | aios-host audit
	// verify -), as call and space put read it: it was "open -: no such
	// file" (TestAuditVerifyStdin). It is copied to a file of its own, the
	// log being read more than once.
	if n := len(slices.DeleteFunc(slices.Clone(files), func(f string) bool { return f != "-" })); n > 1 {
		return c.usageError(fs, "standard input (-) is given %d times", n)
	}
	for i, f := range files {
		if f != "-" {
			continue
		}
		tmp, err := os.CreateTemp("", "aios-audit-stdin-*.jsonl")
		if err != nil {
			return c.fail(fmt.Errorf("reading the log from standard input: %w", err))
		}
		defer os.Remove(tmp.Name())
		_, err = io.Copy(tmp, c.stdin)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return c.fail(fmt.Errorf("reading the log from standard input: %w", err))
		}
		fmt.Fprintf(c.stderr, "standard input is read as %s\n", tmp.Name())
		files[i] = tmp.Name()
	}
	current := "" // the configured log, when no FILE is given
	if len(files) == 0 {
		cfg, err := c.config()
		if err != nil {
			return c.fail(err)
		}
		current = cfg.AuditPath()
		if files, err = logFiles(current); err != nil {
			return c.fail(err)
		}
		if _, err := os.Stat(current); cfg.Audit.Disabled && len(files) == 1 && errors.Is(err, os.ErrNotExist) {
			// Not "open …: no such file", which reads as a log deleted.
			return c.fail(fmt.Errorf("no audit log at %s: the log is turned off (%s: audit.disabled: true), so the host writes none", current, cfg.Where("audit.disabled")))
		}
		if len(files) == 1 && files[0] == current && notThere(current) && notThere(audit.PrunedName(current)) {
			// No log, and none pruned: a data folder no call was made
			// with (the newcomer's first audit verify), or one mistyped.
			// "open …: no such file or directory" read as a log deleted.
			// Still exit 1: a log removed whole looks the same.
			why := "no call has been recorded there yet (the host writes the log at its first call), or the log was removed"
			if dir := filepath.Dir(current); notThere(dir) {
				why = fmt.Sprintf("the folder %s does not exist: no host has written there (is the data folder, --data or $AIOS_DATA, or audit.path the one meant?)", dir)
			}
			return c.fail(fmt.Errorf("no audit log at %s: %s", current, why))
		}
		if auditListed != nil {
			auditListed()
		}
		if opts.After.Seq == 0 {
			a, ok, err := prunedAfter(current, files)
			if err != nil {
				return c.fail(err)
			}
			if ok {
				opts.After = a
				fmt.Fprintf(c.stderr, "records 1 to %d were pruned (audit.max_files): checking from the anchor %s kept in %s\n", a.Seq, a, audit.PrunedName(current))
				if an := opts.Anchor; an != nil && an.Seq < a.Seq {
					// The anchored record was in a file the host
					// deleted: "give the files that hold it" asked for
					// files no longer there.
					return c.fail(prunedAnchorError(current, *an, a, *signedFlag))
				}
			}
		}
	}
	if sub == "show" {
		return c.auditShow(files, current, opts, show, filter)
	}
	if *outFlag == "-" {
		// A script's "-" for standard output: it made a file named "-".
		*outFlag = ""
	}
	if sub == "anchor" && *outFlag != "" {
		// --out is replaced whole: naming a file of the log (a slip of
		// tab completion) replaced the records the anchor vouches for.
		logs := files
		if current != "" {
			logs = append(slices.Clone(files), audit.PrunedName(current))
		}
		if what := sameFileAs(*outFlag, logs, *keyFlag); what != "" {
			return c.usageError(fs, "--out %s is %s: the signed anchor would replace it; write it elsewhere (away from the host)", *outFlag, what)
		}
	}
	files, total, last, failed, err := verifyLog(files, current, opts)
	if err != nil {
		var ve *audit.VerifyError
		if !errors.As(err, &ve) {
			var pe *os.PathError
			if failed == "" || errors.As(err, &pe) {
				return c.fail(err) // it names the file, or is about no file
			}
			return c.fail(fmt.Errorf("read %s: %w", failed, err))
		}
		fmt.Fprintf(c.stderr, "%s:%d: %s\n", failed, ve.Line, ve.Reason)
		if filepath.IsAbs(signedLog) && !sameLog(signedLog, files[len(files)-1]) {
			// The anchor vouches for another log: not (only) a
			// log cut short or rewritten. (One written before its
			// log was made absolute names it from a folder not
			// known: not compared.)
			fmt.Fprintf(c.stderr, "(the signed anchor %s is of the log %s, not of %s: an anchor of another log, or that log was moved)\n", *signedFlag, signedLog, files[len(files)-1])
		}
		if failed == files[0] && opts.After.Seq == 0 && strings.Contains(ve.Reason, "want 1:") && !strings.Contains(ve.Reason, "removed from its start") && !strings.Contains(ve.Reason, "the files are out of order") {
			if rotated, err := audit.RotatedFiles(failed); err == nil && len(rotated) > 0 && ve.Line == 1 {
				// The current file given alone: the files before
				// it are there, nothing was removed.
				fmt.Fprintf(c.stderr, "(%s follows the files rotation split off it, %s … %s: run audit verify without FILE to check them together, or give them before it)\n", failed, rotated[0].Path, rotated[len(rotated)-1].Path)
			} else {
				fmt.Fprintf(c.stderr, "(if the files before %s were removed on purpose, give --after with the anchor of the record before its first)\n", failed)
			}
		}
		fmt.Fprintf(c.stdout, "FAIL: %s: %d records verified before line %d\n", failed, total, ve.Line)
		return exitFail
	}
	what := files[0]
	if len(files) > 1 {
		what = fmt.Sprintf("%d files (%s … %s)", len(files), files[0], files[len(files)-1])
	}
	if sub == "anchor" {
		if last.Hash == "" {
			return c.fail(fmt.Errorf("%s holds no record to anchor", what))
		}
		return c.writeSignedAnchor(files[len(files)-1], last, key, *outFlag)
	}
	if last.Hash == "" {
		fmt.Fprintf(c.stdout, "OK: %s: 0 records (empty log)\n", what)
		return exitOK
	}
	fmt.Fprintf(c.stdout, "OK: %s: %d records, anchor %s\n", what, total, last)
	return exitOK
}

// prunedAnchorError says why the anchor an (--anchor, or the signed
// anchor file signed) cannot be checked: its record was in a rotated file
// that the host pruned (audit.max_files), the log now following after.
// The anchor the host kept of that record, when it ended a pruned file,
// is compared, but it is no proof (whoever rewrites the log can rewrite
// the pruned file too), so the verification fails either way.
func prunedAnchorError(current string, an, after audit.Anchor, signed string) error {
	what := "the anchor " + an.String()
	if signed != "" {
		what = "the signed anchor " + signed + " (" + an.String() + ")"
	}
	msg := fmt.Sprintf("%s names record %d, which was in a rotated file the host deleted (audit.max_files): the log holds records from %d on, so the anchor cannot be checked against it; check an anchor of a later record (anchor the log more often than the host prunes it)", what, an.Seq, after.Seq+1)
	if kept, ok, err := audit.PrunedAnchor(current, an.Seq); err == nil && ok {
		if kept.Hash != an.Hash {
			msg += fmt.Sprintf("; the anchor kept of that record in %s when its file was pruned, %s, differs: the log (or the pruned file) was rewritten", audit.PrunedName(current), kept)
		} else {
			msg += fmt.Sprintf(" (the anchor kept of it in %s when its file was pruned is the same, but that file is no proof)", audit.PrunedName(current))
		}
	}
	return errors.New(msg)
}

// sameLog says whether the log file a signed anchor names (as audit
// anchor was given it) is file: the same path, or the same file.
func sameLog(signed, file string) bool {
	if absClean(signed) == absClean(file) {
		return true
	}
	a, err1 := os.Stat(signed)
	b, err2 := os.Stat(file)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// sameFileAs says which file out is, following links: one of the log's
// files ("the log file F"), the key ("the key file F") or the jwks.json
// beside it; "" when none
// (or out does not exist yet).
func sameFileAs(out string, logFiles []string, key string) string {
	st, err := os.Stat(out)
	if err != nil {
		return ""
	}
	same := func(f string) bool {
		fst, err := os.Stat(f)
		return err == nil && os.SameFile(st, fst)
	}
	for _, f := range logFiles {
		if same(f) {
			return "the log file " + f
		}
	}
	if same(key) {
		return "the key file " + key
	}
	// The public key keygen wrote beside it (loadSigningKey reads its kid):
	// verify --signed-anchor --jwks needs it.
	if jwks := filepath.Join(filepath.Dir(key), "jwks.json"); same(jwks) {
		return "the public key set " + jwks + " beside the key file, which verify --signed-anchor --jwks needs"
	}
	return ""
}

// notThere reports whether nothing, not even a link, is at path.
func notThere(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// auditListed, in tests, runs after audit verify listed the log's files.
var auditListed func()

// verifyLog verifies files as one chain (audit.VerifyFiles). current is
// the configured log when files is its listing (logFiles), else "". When
// current is the file that fails, a running host may have rotated the log
// after the listing (the file now at the path follows one the listing did
// not have): the log is listed again and, when that differs, verified
// anew, opts.Each then seeing only the records it was not given before.
// It returns the files verified last.
func verifyLog(files []string, current string, opts audit.VerifyOptions) ([]string, int, audit.Anchor, string, error) {
	var seen uint64 // the last seq given to opts.Each
	each := opts.Each
	if each != nil {
		opts.Each = func(r *audit.Record, line []byte) error {
			if r.Seq <= seen {
				return nil
			}
			seen = r.Seq
			return each(r, line)
		}
	}
	total, last, failed, err := audit.VerifyFiles(files, opts)
	// The host rotated the log after the listing (the current file fails:
	// it now follows a file the listing did not have) or pruned a file of
	// it (audit.max_files: it is gone), or both, maybe more than once: a
	// host rotating 1 MiB files at 20k records/s needed up to a few dozen
	// listings (8 failed 6 verifies of 40). Each one follows a change the
	// host made.
	for range 64 {
		if err == nil || current == "" || failed == "" || failed != current && !errors.Is(err, os.ErrNotExist) {
			break
		}
		again, lerr := logFiles(current)
		if lerr != nil || slices.Equal(again, files) {
			break
		}
		// Files pruned meanwhile: start from the anchor the host kept
		// when the anchor was that of a pruning too (or none was given).
		auto := opts.After.Seq == 0
		if !auto {
			a, ok, perr := audit.PrunedAnchor(current, opts.After.Seq)
			auto = perr == nil && ok && a == opts.After
		}
		if b, ok, perr := prunedAfter(current, again); auto && perr == nil && ok {
			if each != nil && seen > 0 && b.Seq > seen {
				// Records before them were given to opts.Each
				// (audit show printed them): going on would leave a
				// gap in what it shows.
				return files, total, last, failed, fmt.Errorf("records %d to %d were pruned (audit.max_files) while the records before them were read: run again", seen+1, b.Seq)
			}
			opts.After = b
		}
		files = again
		total, last, failed, err = audit.VerifyFiles(files, opts)
	}
	return files, total, last, failed, err
}

// prunedAfter returns the anchor that audit.max_files kept of the record
// before the first of files (the log at current, as logFiles lists it)
// when the files before it were pruned (audit.PrunedAnchor). When it kept
// none of that record but of an older one (the oldest file left after the
// pruning was removed by hand), that one: verifying from it names the
// records missing between, not a log that should start at record 1.
func prunedAfter(current string, files []string) (audit.Anchor, bool, error) {
	first, err := audit.FirstSeq(files[0])
	if err != nil || first <= 1 {
		return audit.Anchor{}, false, nil // verification says what is wrong with the file
	}
	a, ok, err := audit.PrunedAnchor(current, first-1)
	if err != nil || ok {
		return a, ok, err
	}
	if a, ok, err = audit.LastPruned(current); err != nil || !ok || a.Seq >= first {
		return audit.Anchor{}, false, err
	}
	return a, true, nil
}

// logFiles lists the files of the log at path, oldest first: the files
// rotation split off it, then path itself (when it exists, or when there
// is nothing else).
func logFiles(path string) ([]string, error) {
	rotated, err := audit.RotatedFiles(path)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, r := range rotated {
		// Not opened when it is no regular file: reading a FIFO would
		// block until someone writes to it.
		st, err := os.Stat(r.Path)
		if err == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is named like a rotated file of %s but is not a regular file (%s)", r.Path, path, fsperm.Kind(st.Mode()))
		}
		if errors.Is(err, fs.ErrNotExist) {
			// Listed, so there: a link whose file is not ("open …: no
			// such file or directory" of a file ls shows).
			if to, lerr := os.Readlink(r.Path); lerr == nil {
				return nil, fmt.Errorf("%s, a rotated file of %s, is a link to %s, which is not there", r.Path, path, to)
			}
		}
		files = append(files, r.Path)
	}
	if st, err := os.Stat(path); err == nil || len(files) == 0 {
		if err == nil && !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file (%s)", path, fsperm.Kind(st.Mode()))
		}
		files = append(files, path)
	}
	return files, nil
}

// writeSignedAnchor signs a's anchor of the log at path with key and writes
// the compact JWS (and a newline) to out, or standard output.
func (c *cli) writeSignedAnchor(path string, a audit.Anchor, key trust.SigningKey, out string) int {
	// The log's absolute path: a relative one names another file from
	// any other folder.
	payload, err := json.Marshal(signedAnchor{Log: absClean(path), Seq: a.Seq, Hash: a.Hash, SignedAt: time.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		return c.fail(err)
	}
	tok, err := trust.SignCompact(payload, anchorJWSType, key)
	if err != nil {
		return c.fail(err)
	}
	if out == "" {
		fmt.Fprintln(c.stdout, tok)
		return exitOK
	}
	// A file is replaced whole (a temporary file fsynced and renamed over
	// it): rewritten in place, a crash left a torn anchor where the good
	// one had been. A device or a FIFO (/dev/stdout) is written to; a
	// symbolic link is followed, as before, and its target replaced.
	write, target := replaceFile, out
	if st, err := os.Stat(out); err == nil && st.Mode()&(os.ModeDevice|os.ModeNamedPipe|os.ModeSocket) != 0 {
		write = os.WriteFile
	} else if real, err := filepath.EvalSymlinks(out); err == nil {
		target = real
	}
	if err := write(target, []byte(tok+"\n"), 0o600); err != nil {
		return c.fail(err)
	}
	fmt.Fprintf(c.stdout, "signed anchor %s written to %s (key %s)\n", a, out, key.KeyID)
	return exitOK
}

// readSignedAnchor checks a signed anchor file against a JWKS file and
// returns its anchor and the log it names (its "log", as audit anchor was
// given that log's path).
func readSignedAnchor(file, jwksFile string) (audit.Anchor, string, error) {
	tok, err := readInputFile(file, maxKeyFileBytes, "a signed anchor")
	if err != nil {
		return audit.Anchor{}, "", err
	}
	jwks, err := readInputFile(jwksFile, maxKeyFileBytes, "a JWKS")
	if err != nil {
		return audit.Anchor{}, "", err
	}
	keys, err := trust.ParseJWKS(jwks, abi.Verified, jwksFile)
	if err != nil {
		return audit.Anchor{}, "", err
	}
	if len(strings.TrimSpace(string(tok))) == 0 {
		return audit.Anchor{}, "", fmt.Errorf("signed anchor %s is empty (audit anchor writes one)", file)
	}
	payload, _, err := trust.VerifyCompact(strings.TrimSpace(string(tok)), anchorJWSType, keys)
	if err != nil {
		return audit.Anchor{}, "", fmt.Errorf("signed anchor %s: %w", file, err)
	}
	var sa signedAnchor
	if err := json.Unmarshal(payload, &sa); err != nil {
		return audit.Anchor{}, "", fmt.Errorf("signed anchor %s: payload: %w", file, err)
	}
	a, err := audit.ParseAnchor(fmt.Sprintf("%d:%s", sa.Seq, sa.Hash))
	if err != nil {
		return audit.Anchor{}, "", fmt.Errorf("signed anchor %s: %w", file, err)
	}
	return a, sa.Log, nil
}
