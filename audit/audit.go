// Package audit writes the aios-host audit log: one JSON Lines record per
// tool call, each carrying the hash of the previous record, so that editing,
// deleting, inserting or reordering records is detected by Verify.
//
// The log is written off the hot path. Writer.Log only copies an Entry into a
// buffered channel; one background goroutine hashes params and results,
// chains, encodes, buffers and writes, with grouped fsync. When the channel is
// full Log blocks (back-pressure) rather than dropping a record. Close drains
// the channel and fsyncs, so a clean shutdown loses nothing. See
// docs/audit.md for the record format and for what a crash can lose.
//
// audit imports only the standard library and golang.org/x/sys/unix; it
// must never import host,
// registry, runtimes or cmd.
package audit

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"github.com/aios-host/aios-host/internal/fsperm"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Entry describes one finished call. Params and Result are generic values
// (see abi.Normalize); the Writer hashes them later on its own goroutine, so
// the caller hands them over with the Entry and must not modify them after
// Log.
type Entry struct {
	Time      time.Time // when the call started; zero means when the record is written
	CallID    string
	ParentID  string
	Caller    string
	Provider  string
	Tool      string
	Version   string
	Runtime   string
	Params    any
	Result    any    // ignored unless Outcome is "" or "ok"
	Outcome   string // "" or "ok" for success, otherwise the error code
	Error     string // the error message, truncated to Options.MaxErrorBytes
	Latency   time.Duration
	Untrusted bool // the provider runs at trust level Untrusted
	// Principal is who, behind the agent, asked for the call: the
	// credential a server mapped to the agent ("uid:1001", "token:NAME",
	// "oauth:SUBJECT"); "" for calls from within the host's process.
	Principal string
	// Session is the client session the call came in (an MCP session id).
	Session string
	// Remote is the network address the request came from: the TCP
	// peer (IP:port) of an HTTP request; "" for the unix socket, stdio
	// and calls from within the host's process.
	Remote string
}

// RefusalNote begins a record's error when a host service (a Space read
// or write, inference, a brokered connection) refused the call for want of
// a capability and the tool went on: the host writes it, whatever the
// call's outcome, and `audit show --refused` selects on it.
const RefusalNote = "host service refused during the call: CapabilityDenied: "

// Refused reports whether a record is of a call refused something for want
// of a capability: outcome CapabilityDenied, or RefusalNote at the head of
// its error.
func Refused(outcome, errText string) bool {
	return outcome == "CapabilityDenied" || strings.HasPrefix(errText, RefusalNote)
}

// Options tune a Writer. The zero value gives the defaults.
type Options struct {
	// Buffer is how many entries may wait between Log and the writer
	// goroutine before Log blocks (default 8192 entries).
	Buffer int
	// FlushDelay is how long the writer lets records gather after the
	// first one of a group arrives before it encodes them and hands them
	// to the kernel in one write (default 1ms). Larger groups cost less
	// per record; a process crash can lose the records of at most this
	// long (see docs/audit.md). A full queue (Buffer/2) cuts the delay
	// short.
	FlushDelay time.Duration
	// SyncInterval is the longest time a written record waits for fsync
	// (default 200ms).
	SyncInterval time.Duration
	// SyncEvery fsyncs after this many records even before SyncInterval
	// (default 4096).
	SyncEvery int
	// MaxErrorBytes truncates error messages (default 1024, at most
	// 64 KiB). The record's other strings are cut at 1 KiB.
	MaxErrorBytes int
	// RepairTail lets Open cut off an incomplete last line (what a crash
	// during a write leaves behind) instead of refusing the log. The cut
	// bytes are reported to Logger.
	RepairTail bool
	// Logger receives write errors and repairs (default: discard).
	Logger *slog.Logger
	// MaxBytes rotates the log when the file reaches this size (0: never).
	// The full file is fsynced and renamed RotatedName(path, first, last)
	// (first and last are the seq of its first and last record), and a new
	// file at path continues the chain: its first record has the next seq
	// and the last record's hash as prev. Rotation happens between write
	// groups, so no record is split. See RotatedFiles and VerifyOptions.
	MaxBytes int64
	// MaxFiles keeps at most this many rotated files (0: all of them).
	// After a rotation, and at Open, the oldest beyond it are deleted, each
	// once it verifies and the file after it is checked to follow it, and
	// the anchor of its last record is appended first to PrunedName(path),
	// which verifying the rest starts from (PrunedAnchor). See docs/audit.md "Rotation".
	MaxFiles int

	// WriteFault, when set, replaces the writes to the log file: fault
	// injection for tests (a full disk) of the writer and of its callers.
	WriteFault func(f *os.File, b []byte) (int, error)

	// hold, in tests, keeps the writer goroutine from starting until closed.
	hold chan struct{}
}

func (o *Options) setDefaults() {
	if o.Buffer <= 0 {
		o.Buffer = 8192
	}
	if o.FlushDelay <= 0 {
		o.FlushDelay = time.Millisecond
	}
	if o.SyncInterval <= 0 {
		o.SyncInterval = 200 * time.Millisecond
	}
	if o.SyncEvery <= 0 {
		o.SyncEvery = 4096
	}
	if o.MaxErrorBytes <= 0 {
		o.MaxErrorBytes = 1024
	}
	// Escaped six-fold at worst, an error must leave its record well
	// below MaxLineBytes.
	o.MaxErrorBytes = min(o.MaxErrorBytes, maxErrorBytes)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// maxErrorBytes is the largest Options.MaxErrorBytes.
const maxErrorBytes = 64 << 10

// writeChunk is the size at which the writer hands encoded records to the
// kernel even in the middle of a group.
const writeChunk = 64 << 10

// Writer appends records to one log file. Log is safe for concurrent use.
type Writer struct {
	path string
	opts Options
	f    *os.File

	// The queue: Log appends to q under mu; the writer goroutine swaps q
	// with spare and encodes the batch without holding mu.
	mu      sync.Mutex
	q       []Entry
	notFull sync.Cond // Log waits here while q holds Buffer entries
	waiting int       // Logs waiting on notFull
	closing bool
	kick    chan struct{} // q became non-empty
	full    chan struct{} // q reached Buffer/2: skip the grouping delay
	syncReq chan syncRequest
	stop    chan struct{}
	done    chan struct{}

	closeOnce sync.Once
	closeErr  error
	dropped   atomic.Int64

	// Owned by the encoder goroutine (run) after Open returns.
	spare    []Entry
	out      []byte // encoded records not yet handed to the I/O goroutine
	seq      uint64
	prev     []byte // hash of the last record: "" or "sha256:<hex>"
	vh       valueHasher
	clock    timeFormatter
	pending  int    // records encoded since the last fsync request
	outFirst uint64 // seq of the first record in out

	// Between the encoder and the hashing helper (hashLoop): the helper
	// hashes the params and results of a batch into hashes, publishing
	// in hashed how many are done, while the encoder encodes and chains
	// the records behind it.
	hashReq chan []Entry
	hashes  []valueHashes
	hashed  atomic.Int64

	// Between the encoder and the I/O goroutine (writeLoop), which owns
	// the file and err: full buffers go to io, empty ones come back on
	// free.
	io     chan ioReq
	free   chan []byte
	ioDone chan struct{} // closed when the I/O goroutine and the syncer are done
	// checkDone is closed when checkOpened is done (nil: not started).
	checkDone chan struct{}
	// Between the I/O goroutine and the syncer (syncLoop), which fsyncs
	// what was written while the I/O goroutine goes on writing.
	syncs    chan syncJob
	syncDone chan struct{}
	errMu    sync.Mutex
	err      error         // first fsync or rotation error, or a write error at Close (errMu): nothing more is written
	writeErr error         // the write error being retried (errMu), nil when writes succeed
	broken   atomic.Bool   // err or writeErr is set: Failing
	failSig  chan struct{} // closed when the log starts failing, replaced when it recovers (errMu)
	// The current file's size and the seq of its first and last record
	// (0: none yet), for rotation (I/O goroutine).
	size                int64
	fileFirst, fileLast uint64
	// rotateAt is the size at which the current file is rotated when a
	// rotation could not rename it (0: MaxBytes; I/O goroutine).
	rotateAt int64
	// cacheFrom is where the current file's page cache was last dropped to
	// (a page boundary): bytes below it are synced and out of the cache.
	cacheFrom int64
	// misplaced is the file checkPlace last warned about (syncer only);
	// moved tells the I/O goroutine to continue in a new file at the path.
	misplaced *os.File
	moved     atomic.Bool
	// cut tells the I/O goroutine that the current file is shorter than
	// what was written to it (checkPlace): it was truncated under the
	// writer (logrotate's copytruncate).
	cut atomic.Bool
	// placedSize and placedLast are the current file's size and the seq of
	// its last record (0: none) when checkPlace last found it at the path
	// (syncer, or the I/O goroutine after a barrier): what a deleted file
	// held beyond them is written again to the new file (reopen).
	placedSize int64
	placedLast uint64
	// replay holds what a deleted file held past placedSize, from its
	// record replayFirst on, until the new file has it (I/O goroutine).
	replay      []byte
	replayFirst uint64

	// pruneKick asks the pruner (pruneLoop, when MaxFiles > 0) to delete
	// the rotated files past MaxFiles; closed by Close, after which
	// pruneDone closes.
	pruneKick chan struct{}
	pruneDone chan struct{}
}

// ioReq asks the I/O goroutine to write buf, then fsync when sync is set,
// then send its error state on reply when reply is not nil.
type ioReq struct {
	buf         []byte
	first, last uint64 // seq of the first and last record in buf (0: none)
	sync        bool
	reply       chan error
}

// ioBuffers is how many encode buffers exist: one being filled, the rest
// queued for or in write(2).
const ioBuffers = 8

// ErrInUse is wrapped by Open's error when another process holds the log
// (flock): "audit: PATH is in use by another process, …".
var ErrInUse = errors.New("in use by another process")

// Open opens the log at path for appending, creating it (and its directory)
// if needed. An existing log continues its chain: Open reads and checks the
// last record and refuses a log whose tail is damaged. The file is locked
// (flock) so two processes cannot interleave records.
func Open(path string, opts Options) (*Writer, error) {
	opts.setDefaults()
	// Folders made here (a new data folder, audit-sessions) are synced
	// in their parents, as the file in its folder below.
	if err := fsperm.MkdirAll(filepath.Dir(path), 0o700, syncDir); err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	_, statErr := os.Lstat(path)
	// O_APPEND: a log cut under the host (logrotate's copytruncate) gets
	// the next records at its new end, not past a hole of NUL bytes.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	if errors.Is(statErr, fs.ErrNotExist) {
		// Made here: its entry in the folder is made durable, or the
		// records fsynced into it could go with it in a crash (as
		// continueIn does for the file a rotation makes).
		syncDir(filepath.Dir(path))
	}
	// Only a regular file keeps records: a link to /dev/null would take
	// them and lose them (until the first fsync failed), a FIFO cannot be
	// appended to.
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("audit: %w", err)
		}
		return nil, fmt.Errorf("audit: %s is not a regular file (%s): the audit log must be one (check audit.path or --data)", path, fsperm.Kind(st.Mode()))
	}
	if err := lockFile(f); err != nil {
		f.Close()
		// ErrInUse is the cause, said once: it was appended after the
		// advice, which it repeated (TestInUseSaidOnce).
		return nil, fmt.Errorf("audit: %s is %w, such as a running `aios-host run` (%v); use another --data directory or stop it", path, ErrInUse, err)
	}
	w := &Writer{
		path:     logFile(path),
		opts:     opts,
		f:        f,
		failSig:  make(chan struct{}),
		kick:     make(chan struct{}, 1),
		full:     make(chan struct{}, 1),
		syncReq:  make(chan syncRequest),
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		prev:     make([]byte, 0, len(hashPrefix)+64),
		io:       make(chan ioReq, ioBuffers),
		free:     make(chan []byte, ioBuffers),
		ioDone:   make(chan struct{}),
		syncs:    make(chan syncJob, syncQueue),
		syncDone: make(chan struct{}),
		out:      make([]byte, 0, writeChunk+8<<10),
	}
	for range ioBuffers - 1 {
		w.free <- make([]byte, 0, writeChunk+8<<10)
	}
	w.notFull.L = &w.mu
	if err := w.loadTail(false); err != nil {
		f.Close()
		return nil, err
	}
	if w.seq == 0 {
		if err := w.continueFromRotated(); err != nil {
			f.Close()
			return nil, err
		}
	} else {
		w.fileFirst, w.fileLast = firstSeq(f), w.seq
	}
	if st, err := f.Stat(); err == nil {
		w.size = st.Size()
	}
	w.placedSize, w.placedLast = w.size, w.fileLast
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, fmt.Errorf("audit: %s: %w", path, err)
	}
	w.vh.log = opts.Logger
	if runtime.GOMAXPROCS(0) > 1 {
		w.hashReq = make(chan []Entry)
		go w.hashLoop()
	}
	if opts.MaxFiles > 0 {
		w.pruneKick, w.pruneDone = make(chan struct{}, 1), make(chan struct{})
		w.pruneKick <- struct{}{} // files left from before, or a smaller MaxFiles
		go w.pruneLoop()
	}
	if w.size > 0 {
		if rf, err := os.Open(path); err == nil {
			w.checkDone = make(chan struct{})
			go w.checkOpened(rf, w.size)
		}
	}
	go w.writeLoop()
	go w.syncLoop()
	go w.run()
	return w, nil
}

// checkOpened verifies, in the background, the records f (the log) held
// when it was opened, and says at Warn where they fail: Open checks only
// the last one, and the chain goes on from it whatever came before (a
// record edited, deleted or inserted in the middle). The file's first
// record is taken as it links (it may follow a rotated file). Close stops
// it.
func (w *Writer) checkOpened(f *os.File, size int64) {
	defer close(w.checkDone)
	defer f.Close()
	var after Anchor
	if line, err := readLine(bufio.NewReaderSize(io.NewSectionReader(f, 0, min(size, MaxLineBytes+1)), 64<<10)); err == nil {
		if r, reason := checkLine(line); reason == "" && r.Seq > 0 {
			after = Anchor{Seq: r.Seq - 1, Hash: r.Prev}
		}
	}
	n, _, err := VerifyWith(stopReader{io.NewSectionReader(f, 0, size), w.stop}, VerifyOptions{After: after})
	var ve *VerifyError
	if errors.As(err, &ve) {
		w.opts.Logger.Warn("audit: the log fails verification before the records this host appends to it; the chain goes on from its last record: check it with `aios-host audit verify`",
			"path", w.path, "line", ve.Line, "reason", ve.Reason, "records_verified", n)
	}
}

// stopReader reads r until stop is closed.
type stopReader struct {
	r    io.Reader
	stop chan struct{}
}

func (s stopReader) Read(p []byte) (int, error) {
	select {
	case <-s.stop:
		return 0, errors.New("audit: closed")
	default:
	}
	return s.r.Read(p)
}

// Log queues e for writing. It never drops a record: when the queue is full
// it waits. It does no hashing or encoding and no allocation (beyond the
// queue's growth up to Buffer entries). Log after Close does nothing
// (counted by Dropped). Log on a nil *Writer does nothing, so a host without
// an audit log needs no special case.
func (w *Writer) Log(e Entry) {
	if w == nil {
		return
	}
	w.mu.Lock()
	for len(w.q) >= w.opts.Buffer && !w.closing {
		w.waiting++
		w.notFull.Wait()
		w.waiting--
	}
	if w.closing {
		w.mu.Unlock()
		if w.dropped.Add(1) == 1 {
			w.opts.Logger.Error("audit record dropped: the log was closed before the call ended (later drops are not logged)",
				"path", w.path, "call_id", e.CallID, "tool", e.Tool, "outcome", e.Outcome)
		}
		return
	}
	w.q = append(w.q, e)
	n := len(w.q)
	w.mu.Unlock()
	switch n {
	case 1:
		signal(w.kick)
	case max(w.opts.Buffer/2, 1):
		signal(w.full)
	}
}

// signal sends on a channel of capacity 1 without blocking.
func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Dropped counts entries logged after Close.
func (w *Writer) Dropped() int64 { return w.dropped.Load() }

// Path returns the log's file name.
func (w *Writer) Path() string { return w.path }

// Close writes every queued record, fsyncs and closes the file. It returns
// the first write error the log met, if any. Close is idempotent.
func (w *Writer) Close() error {
	if w == nil {
		return nil
	}
	w.closeOnce.Do(func() {
		w.mu.Lock()
		w.closing = true
		w.notFull.Broadcast()
		w.mu.Unlock()
		close(w.stop)
		<-w.done
		if w.checkDone != nil {
			<-w.checkDone
		}
		<-w.ioDone
		if w.pruneKick != nil {
			close(w.pruneKick) // the I/O goroutine, which kicks it, is done
			<-w.pruneDone
		}
		w.closeErr = w.failed()
		if err := w.f.Close(); err != nil && w.closeErr == nil {
			w.closeErr = fmt.Errorf("audit: close %s: %w", w.path, err)
		}
	})
	return w.closeErr
}

// Sync writes every record logged before it and fsyncs. It is meant for
// tests and for callers that need a durability point; the hot path never
// needs it.
func (w *Writer) Sync() error { return w.request(true) }

// Flush writes every record logged before it to the file (hands it to the
// kernel) without waiting for an fsync: after Flush a reader of the file
// sees the records. Benchmarks use it to count the writer's work for their
// calls without one disk flush's latency.
func (w *Writer) Flush() error { return w.request(false) }

// syncRequest asks the encoder to write everything queued, fsync when
// fsync is set, and answer on reply.
type syncRequest struct {
	reply chan error
	fsync bool
}

func (w *Writer) request(fsync bool) error {
	if w == nil {
		return nil
	}
	if err := w.Failing(); err != nil {
		return err // records are held until the log can be written: do not wait
	}
	w.errMu.Lock()
	failing := w.failSig
	w.errMu.Unlock()
	reply := make(chan error, 1)
	select {
	case w.syncReq <- syncRequest{reply, fsync}:
	case <-w.done:
		return errors.New("audit: writer closed")
	case <-failing:
		return w.Failing()
	}
	select {
	case err := <-reply:
		return err
	case <-failing:
		// The records before the request are held until the log can be
		// written (a full disk): say so rather than wait.
		return w.Failing()
	}
}

func (w *Writer) run() {
	defer close(w.done)
	defer close(w.io) // after the final sync: ends writeLoop
	if w.hashReq != nil {
		defer close(w.hashReq) // ends hashLoop
	}
	if w.opts.hold != nil {
		<-w.opts.hold
	}
	group := time.NewTimer(time.Hour)
	group.Stop()
	tick := time.NewTicker(w.opts.SyncInterval)
	defer tick.Stop()
	for {
		select {
		case <-w.kick:
			// Let a group gather: one wake-up, one encode loop and one
			// write for many records instead of one each.
			group.Reset(w.opts.FlushDelay)
			select {
			case <-group.C:
			case <-w.full:
				group.Stop()
			case req := <-w.syncReq:
				group.Stop()
				w.drain()
				w.answer(req)
				continue
			case <-w.stop:
				group.Stop()
			}
			w.drain()
		case <-w.full:
			w.drain()
		case req := <-w.syncReq:
			w.drain()
			w.answer(req)
		case <-tick.C:
			if w.pending > 0 {
				w.syncNow(nil)
			}
		case <-w.stop:
			w.drain()
			reply := make(chan error, 1)
			w.syncNow(reply)
			<-reply
			return
		}
	}
}

// drain takes every queued entry, encodes it and writes the group to the
// file. Every Log that returned before drain began is in the group.
func (w *Writer) drain() {
	w.mu.Lock()
	batch := w.q
	w.q = w.spare[:0]
	if w.waiting > 0 {
		w.notFull.Broadcast()
	}
	w.mu.Unlock()
	if w.hashReq != nil && len(batch) >= minParallelBatch {
		w.writeParallel(batch)
	} else {
		for i := range batch {
			var h valueHashes
			w.vh.hash(&batch[i], &h)
			w.write(&batch[i], &h)
		}
	}
	clear(batch) // drop references to params and results
	w.spare = batch[:0]
	w.flush()
}

// minParallelBatch is the smallest batch whose value hashing goes to the
// helper: below it the hand-off costs more than it saves.
const minParallelBatch = 16

// writeParallel writes batch with the hashing helper: the helper hashes
// each entry's params and result (canonical JSON, SHA-256) into w.hashes
// while this goroutine encodes, hashes and chains the records in order
// behind it. The two halves of a record's work run on two cores, so the
// log keeps up with callers on both (docs/audit.md, "Writer"). Returns
// once every record is encoded and the helper is done with batch.
func (w *Writer) writeParallel(batch []Entry) {
	w.hashes = slices.Grow(w.hashes[:0], len(batch))[:len(batch)]
	w.hashed.Store(0)
	w.hashReq <- batch
	for i := range batch {
		for spins := 0; w.hashed.Load() <= int64(i); spins++ {
			if spins >= 64 {
				runtime.Gosched() // let the helper run if it shares our core
			}
		}
		w.write(&batch[i], &w.hashes[i])
	}
}

// hashLoop is the hashing helper's goroutine (see writeParallel).
func (w *Writer) hashLoop() {
	vh := valueHasher{log: w.vh.log}
	for batch := range w.hashReq {
		hs := w.hashes[:len(batch)]
		for i := range batch {
			vh.hash(&batch[i], &hs[i])
			w.hashed.Store(int64(i + 1))
		}
	}
}

// valueHashes are the params and result hashes of one entry (has false:
// none, written as "").
type valueHashes struct {
	p, r       [32]byte
	hasP, hasR bool
}

// valueHasher hashes values canonically with reusable buffers; each
// goroutine that hashes has its own.
type valueHasher struct {
	enc     canonEncoder
	scratch []byte
	log     *slog.Logger
}

// hash fills h with e's params hash and, for a successful call, its
// result hash.
func (vh *valueHasher) hash(e *Entry, h *valueHashes) {
	h.p, h.hasP = vh.valueHash(e.CallID, "params", e.Params)
	h.hasR = false
	if e.Outcome == "" || e.Outcome == "ok" {
		h.r, h.hasR = vh.valueHash(e.CallID, "result", e.Result)
	}
}

// NotKept, as an Entry's Params or Result, says the value was not kept
// for the record: its hash is "", as for a value that cannot be encoded
// (the host's params of a native tool's nested call refused as over
// limits.max_params_bytes before they were copied). A nil there is the
// JSON null, whose hash said the call was given null.
var NotKept any = &struct{ notKept byte }{}

// valueHash hashes v's canonical JSON; a value that cannot be encoded
// gets no hash and a warning, NotKept none.
func (vh *valueHasher) valueHash(callID, what string, v any) ([32]byte, bool) {
	if v == NotKept {
		return [32]byte{}, false
	}
	var err error
	vh.scratch, err = vh.enc.append(vh.scratch[:0], v, 0)
	if err != nil {
		vh.log.Warn("audit: value not hashable", "call_id", callID, "what", what, "err", err)
		return [32]byte{}, false
	}
	sum := sha256.Sum256(vh.scratch)
	if cap(vh.scratch) > maxKeptScratch {
		vh.scratch = nil // a rare huge value: do not keep its buffer for good
	}
	return sum, true
}

// maxKeptScratch is the largest encoding buffer a valueHasher keeps for the
// next value.
const maxKeptScratch = 1 << 20

// write encodes one record straight into w.out (see appendEntry), with
// its value hashes h.
func (w *Writer) write(e *Entry, h *valueHashes) {
	var at int
	if len(w.out) == 0 {
		w.outFirst = w.seq + 1
	}
	w.out, at = w.appendEntry(w.out, e, h.p, h.hasP, h.r, h.hasR)
	w.seq++
	w.prev = append(w.prev[:0], w.out[at:at+len(hashPrefix)+64]...)
	w.pending++
	if w.pending >= w.opts.SyncEvery {
		w.syncNow(nil)
	} else if len(w.out) >= writeChunk {
		w.flush()
	}
}

// flush hands the encoded records to the I/O goroutine and takes an
// empty buffer (waiting while every buffer is in flight: back-pressure
// reaches Log through the queue).
func (w *Writer) flush() {
	if len(w.out) == 0 {
		return
	}
	w.handOff(ioReq{buf: w.out})
}

// answer serves a Sync or Flush after drain: the records go to the I/O
// goroutine, which replies once they are written (and fsynced for Sync).
func (w *Writer) answer(req syncRequest) {
	if req.fsync {
		w.syncNow(req.reply)
		return
	}
	w.handOff(ioReq{buf: w.out, reply: req.reply})
}

// syncNow hands over the encoded records with an fsync request; reply,
// when not nil, receives the log's error state after the fsync.
func (w *Writer) syncNow(reply chan error) {
	w.handOff(ioReq{buf: w.out, sync: true, reply: reply})
	w.pending = 0
}

func (w *Writer) handOff(r ioReq) {
	if len(r.buf) > 0 {
		r.first, r.last = w.outFirst, w.seq
	}
	w.io <- r
	w.out = <-w.free
}

// writeLoop is the I/O goroutine: one write(2) per buffer, in order. An
// fsync request goes to the syncer (syncLoop) once the buffer before it is
// written, so the disk's flush overlaps the next writes instead of holding
// up the encoder: before, a group of 4096 records waited for its fsync
// (milliseconds on a virtual disk) with only four 64 KiB buffers to fill
// meanwhile, and the log's throughput fell by a quarter
// (BenchmarkAuditThroughput -cpu 2: 1.55 µs a record against 1.2). After
// a write or fsync error nothing more is written: the file's tail is
// unknown, and a record chained onto a record that is not in the file
// would break the chain.
func (w *Writer) writeLoop() {
	defer func() {
		close(w.syncs)
		<-w.syncDone
		close(w.ioDone)
	}()
	for r := range w.io {
		if len(r.buf) > 0 && w.cut.Load() && w.failed() == nil {
			w.syncBarrier() // the syncer is done with the file
			w.resize()
		}
		if len(r.buf) > 0 && w.moved.Load() && w.failed() == nil {
			w.syncBarrier() // the syncer is done with the old file
			if err := w.f.Sync(); err != nil {
				w.fail(err)
			} else {
				w.reopenRetrying()
			}
		}
		if len(r.buf) > 0 && w.failed() == nil && w.writeRetrying(r.buf) {
			w.size += int64(len(r.buf))
			if w.fileFirst == 0 {
				w.fileFirst = r.first
			}
			w.fileLast = r.last
			if w.opts.MaxBytes > 0 && w.size >= max(w.opts.MaxBytes, w.rotateAt) {
				w.syncBarrier() // the syncer is done with the old file
				// A file moved or deleted (its folder removed) before an
				// fsync noticed is not rotated: the rename would take
				// whatever is at the path now, or fail and stop the log
				// for good. The next write continues in a new file
				// (reopenRetrying), as when the syncer notices.
				w.checkPlace(w.f, w.size, w.fileLast)
				if w.cut.Load() {
					w.resize() // not full after all, or named after what it holds now
				}
				if !w.moved.Load() && w.size >= max(w.opts.MaxBytes, w.rotateAt) {
					var kept *notRotated
					if err := w.rotate(); errors.As(err, &kept) {
						// Nothing changed: the file (synced) is
						// written on, and rotated once it has grown
						// by MaxBytes more, if it can be then.
						w.rotateAt = w.size + w.opts.MaxBytes
						w.opts.Logger.Warn("audit log not rotated: it is kept and written on, and rotation tried again when it has grown by audit.max_bytes more (an append-only or immutable file, chattr +a or +i, cannot be renamed: set audit.max_bytes: 0 for one file)",
							"path", w.path, "bytes", w.size, "err", kept.err)
					} else if err != nil {
						w.fail(err)
					} else if w.pruneKick != nil {
						signal(w.pruneKick)
					}
				}
			}
		}
		switch {
		case r.sync:
			w.syncs <- syncJob{f: w.f, size: w.size, last: w.fileLast, reply: r.reply}
		case r.reply != nil:
			r.reply <- w.failed()
		}
		w.free <- r.buf[:0]
	}
}

// writeRetrying writes buf, retrying a failed write (a full disk) until it
// succeeds, with the records held meanwhile: the encoder stops when the
// I/O buffers are all waiting, Log blocks when its queue is full, and the
// host refuses new calls while Failing. A partial write is cut off, so the
// log always ends at a record boundary and the chain stays whole. Once
// Close has begun, a write that fails again is given up (Close reports
// it). It reports whether buf was written (I/O goroutine only).
func (w *Writer) writeRetrying(buf []byte) bool {
	delay := 50 * time.Millisecond
	for {
		write := w.opts.WriteFault
		if write == nil {
			write = (*os.File).Write
		}
		n, err := write(w.f, buf)
		if err == nil {
			w.writable()
			return true
		}
		if uerr := w.undoPartial(n); uerr != nil {
			w.fail(fmt.Errorf("%v, and cutting the partial write off failed: %v", err, uerr))
			return false
		}
		w.writeFailed(err)
		select {
		case <-w.stop:
			n, err = write(w.f, buf)
			if err == nil {
				w.writable()
				return true
			}
			if uerr := w.undoPartial(n); uerr != nil {
				err = fmt.Errorf("%v, and cutting the partial write off failed: %v", err, uerr)
			}
			w.fail(err)
			return false
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// undoPartial cuts the n bytes a failed write left off the file and puts
// the offset back at the last whole record.
func (w *Writer) undoPartial(n int) error {
	if n > 0 {
		// They went to the file's end (O_APPEND), which is not w.size
		// when the file was cut under the writer since the last fsync
		// looked (emptied by hand to free a full disk): cut at w.size,
		// the emptied file grew back to it, a hole of NUL bytes.
		st, err := w.f.Stat()
		if err != nil {
			return err
		}
		if err := w.f.Truncate(max(st.Size()-int64(n), 0)); err != nil {
			return err
		}
	}
	_, err := w.f.Seek(w.size, io.SeekStart)
	return err
}

// writeFailed records a write error being retried; the first of a run is
// logged.
func (w *Writer) writeFailed(err error) {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	if w.writeErr == nil {
		w.opts.Logger.Error("audit log write failed; records are held and written when it works again, and calls are refused meanwhile", "path", w.path, "err", err)
	}
	w.writeErr = w.wrap(err)
	w.broken.Store(true)
	w.signalFailing()
}

// writable clears a write error after a write succeeded.
func (w *Writer) writable() {
	if !w.broken.Load() {
		return
	}
	w.errMu.Lock()
	defer w.errMu.Unlock()
	if w.writeErr != nil {
		w.opts.Logger.Warn("audit log writable again; the held records are written", "path", w.path)
		w.writeErr = nil
	}
	w.broken.Store(w.err != nil)
	if w.err == nil {
		w.failSig = make(chan struct{})
	}
}

// Failing reports why the log cannot be written now (a full disk, a
// failed fsync), or nil. The host refuses calls while it is not nil: a call
// must not run without its record. One atomic load when the log is well.
func (w *Writer) Failing() error {
	if w == nil || !w.broken.Load() {
		return nil
	}
	return w.failingErr()
}

// failingErr is Failing's slow path (kept apart so Failing inlines).
func (w *Writer) failingErr() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	if w.err != nil {
		return w.err
	}
	return w.writeErr
}

// syncJob asks the syncer to make the first size bytes of f durable and
// then answer on reply (when not nil); a job with barrier set only closes
// it, once every job before it is done.
type syncJob struct {
	f       *os.File
	size    int64
	last    uint64 // seq of the last record in f at size (0: none)
	reply   chan error
	barrier chan struct{}
}

// syncQueue is how many fsync requests may wait for the syncer before
// the I/O goroutine waits too.
const syncQueue = 16

// syncBarrier waits until the syncer has finished every job sent before it
// (I/O goroutine only): after it, the I/O goroutine may close or rename the
// file and move cacheFrom.
func (w *Writer) syncBarrier() {
	b := make(chan struct{})
	w.syncs <- syncJob{barrier: b}
	<-b
}

// syncLoop is the syncer goroutine. Jobs that wait together share one
// fsync (every job's bytes were written before it was sent, so an fsync
// begun after receiving them covers them all). After each fsync it drops
// the synced pages from the page cache.
func (w *Writer) syncLoop() {
	defer close(w.syncDone)
	var batch []syncJob
	for job := range w.syncs {
		batch = append(batch[:0], job)
	gather:
		for job.barrier == nil {
			select {
			case next, ok := <-w.syncs:
				if !ok {
					break gather
				}
				batch = append(batch, next)
				if next.barrier != nil || next.f != job.f {
					break gather // a barrier, or a job of the next file: sync these first
				}
			default:
				break gather
			}
		}
		w.syncJobs(batch)
	}
}

// syncJobs fsyncs the file of batch's jobs and answers them; a barrier or
// a job of another file can only be last (see syncLoop).
func (w *Writer) syncJobs(batch []syncJob) {
	tail := batch[len(batch)-1]
	if tail.barrier != nil || (len(batch) > 1 && tail.f != batch[0].f) {
		batch = batch[:len(batch)-1]
	} else {
		tail = syncJob{}
	}
	if len(batch) > 0 {
		var size int64
		var last uint64
		for _, j := range batch {
			size = max(size, j.size)
			last = max(last, j.last)
		}
		if w.failed() == nil {
			if err := batch[0].f.Sync(); err != nil {
				w.fail(err)
			} else {
				w.dropSynced(batch[0].f, size)
				w.checkPlace(batch[0].f, size, last)
			}
		}
		err := w.failed()
		for _, j := range batch {
			if j.reply != nil {
				j.reply <- err
			}
		}
	}
	switch {
	case tail.barrier != nil:
		close(tail.barrier)
	case tail.f != nil:
		w.syncJobs([]syncJob{tail})
	}
}

// checkPlace notices, once per file, when f is no longer the file at the
// log's path (syncer, or the I/O goroutine after a sync barrier): someone moved or deleted it under the running
// writer (logrotate without copytruncate, a clean-up). The I/O goroutine
// then continues the chain in a new file at the path (reopen), as after a
// rotation. Rotation renames only after the syncer is done with the old
// file, so it never triggers this.
//
// size and last are f's size and the seq of its last record when f was
// synced: while f is in place they are noted (placedSize, placedLast), as
// what a deletion noticed later cannot have taken.
func (w *Writer) checkPlace(f *os.File, size int64, last uint64) {
	if w.misplaced == f {
		return
	}
	here, err1 := os.Stat(w.path)
	cur, err2 := f.Stat()
	if err2 != nil {
		return
	}
	if err1 == nil && os.SameFile(here, cur) {
		if f == w.f && cur.Size() < size {
			w.cut.Store(true) // truncated under the writer: resize
			return
		}
		if f == w.f && size >= w.placedSize {
			w.placedSize, w.placedLast = size, last
		}
		return
	}
	w.misplaced = f
	now := "another file"
	if err1 != nil {
		now = err1.Error()
	}
	w.opts.Logger.Warn("audit log is no longer at its path (moved or deleted while the host runs): continuing the chain in a new file there",
		"path", w.path, "now", now)
	w.moved.Store(true)
}

// resize takes the size of the current file from the disk after it was
// truncated under the writer (logrotate's copytruncate, or by hand), and
// its first record (I/O goroutine only, after a sync barrier): the records
// written since went to its new end (O_APPEND), and the next rotation must
// name the file after the records it holds now. The records before the cut
// are in whatever copy was made of them; the chain goes on, so the copy
// and the file verify together.
func (w *Writer) resize() {
	w.cut.Store(false)
	st, err := w.f.Stat()
	if err != nil || st.Size() >= w.size {
		return
	}
	first := firstSeq(w.f)
	w.opts.Logger.Warn("audit log truncated while the host runs (logrotate copytruncate?): the chain continues at its new end; verify the copy of what it held and the log together (audit verify COPY LOG)",
		"path", w.path, "bytes_before", w.size, "bytes_now", st.Size(), "first_record_now", first)
	w.size, w.fileFirst, w.rotateAt = st.Size(), first, 0
	w.placedSize, w.placedLast, w.cacheFrom = w.size, w.fileLast, 0
	if first == 0 {
		w.fileLast = 0
	}
}

// reopenRetrying reopens the log at its path (reopen), and while that
// fails (the log's folder removed, another file put at the path) holds
// the records and retries, backing off from 50 ms to 2 s, as
// writeRetrying does for a full disk: Failing says why and the host
// refuses calls meanwhile; the held records go to the new file once it
// can be made. Before, the first failure stopped the log for good and
// dropped the records in hand, of calls that had run. Once Close has
// begun, a reopen that fails again is given up (Close reports it). I/O
// goroutine only, the old file synced.
func (w *Writer) reopenRetrying() {
	delay := 50 * time.Millisecond
	for {
		err := w.reopen()
		if err == nil {
			w.writable()
			return
		}
		w.writeFailed(err)
		select {
		case <-w.stop:
			if err = w.reopen(); err == nil {
				w.writable()
				return
			}
			w.fail(err)
			return
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// reopen continues the log in a new file at its path after the open one
// was moved or deleted (I/O goroutine only, after a sync barrier and an
// fsync of the old file): the old file keeps the records written to it (a
// deleted one loses them with its last descriptor), the new file's first
// record follows its last, as after a rotation. An empty regular file at
// the path (logrotate's create) is taken; the old file put back is kept;
// any other file there is not written into: reopen fails (and
// reopenRetrying holds the records and tries again).
func (w *Writer) reopen() error {
	w.moved.Store(false)
	if here, err := os.Stat(w.path); err == nil {
		if cur, err := w.f.Stat(); err == nil && os.SameFile(here, cur) {
			return nil // put back
		}
		if !here.Mode().IsRegular() || here.Size() != 0 {
			return fmt.Errorf("the log was moved away and %s is now another file (%s, %d bytes): not writing into it", w.path, here.Mode().Type(), here.Size())
		}
	}
	if w.replay == nil && deleted(w.f) && w.size > w.placedSize {
		w.takeReplay()
	}
	last := w.fileLast
	if err := w.continueIn(0); err != nil {
		return err
	}
	if w.replay != nil {
		// The records the deleted file got after it was last seen in
		// place: some may have been written after it was deleted, and
		// would be lost with it.
		n := bytes.Count(w.replay, []byte{'\n'})
		if !w.writeRetrying(w.replay) {
			w.replay = nil // given up at Close: the log has failed (writeRetrying)
			return nil
		}
		w.size, w.fileFirst, w.fileLast = int64(len(w.replay)), w.replayFirst, last
		w.opts.Logger.Warn("audit log deleted while the host runs: its records since it was last seen in place are written again to a new file at its path, chained on (verify the new file alone with --after SEQ:HASH of the record before its first)",
			"path", w.path, "after_seq", w.replayFirst-1, "records_written_again", n)
		w.replay = nil
		return nil
	}
	w.opts.Logger.Warn("audit log continues in a new file: its first record follows the last one written to the moved file (verify the new file alone with --after SEQ:HASH of that record)",
		"path", w.path, "after_seq", last)
	return nil
}

// maxReplay bounds what takeReplay reads back from a deleted file: the
// records of an fsync interval (audit.sync_interval) at any rate the
// writer reaches fit many times over.
const maxReplay = 64 << 20

// takeReplay reads back what the deleted current file holds past
// placedSize (through /proc/self/fd: the writer's own descriptor is
// write-only) into replay, for reopen to write to the new file (I/O
// goroutine, after a barrier). Where that cannot be read (no /proc) the
// records are lost with the file, as before, and the log says so.
func (w *Writer) takeReplay() {
	from, n := w.placedSize, w.size-w.placedSize
	first := w.placedLast + 1
	if w.placedLast == 0 {
		first = w.fileFirst
	}
	lost := func(err error) {
		w.opts.Logger.Warn("audit log deleted while the host runs: the records it got since it was last seen in place are lost with it",
			"path", w.path, "from_seq", first, "to_seq", w.fileLast, "err", err)
	}
	if n > maxReplay {
		lost(fmt.Errorf("%d bytes, more than the %d read back", n, maxReplay))
		return
	}
	r, err := os.Open(fmt.Sprintf("/proc/self/fd/%d", w.f.Fd()))
	if err != nil {
		lost(err)
		return
	}
	defer r.Close()
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, from); err != nil {
		lost(err)
		return
	}
	w.replay, w.replayFirst = buf, first
}

// dropSynced drops the page cache of f up to size's last page boundary,
// after an fsync (syncer only, or the I/O goroutine after a barrier).
func (w *Writer) dropSynced(f *os.File, size int64) {
	end := size &^ (pageSize - 1)
	if end > w.cacheFrom {
		dropCache(f, w.cacheFrom, end)
		w.cacheFrom = end
	}
}

// pageSize is the unit of dropSynced (a multiple of any page size in use
// only costs a partial page staying cached a little longer).
const pageSize = 4096

// rotate fsyncs and renames the full file and opens a new one at the log's
// path (I/O goroutine only). The renamed file keeps every record it had;
// the chain state lives in the encoder, so the next record simply lands in
// the new file.
func (w *Writer) rotate() error {
	if err := w.f.Sync(); err != nil {
		return err
	}
	first := w.fileFirst
	if f := firstSeq(w.f); f != 0 && f <= w.fileLast {
		first = f // the file was cut under the writer and refilled before a sync noticed
	}
	name := RotatedName(w.path, first, w.fileLast)
	if _, err := os.Lstat(name); err == nil {
		return &notRotated{fmt.Errorf("%s already exists", name)}
	}
	if err := renameLog(w.path, name); err != nil {
		return &notRotated{err}
	}
	if err := w.continueIn(os.O_EXCL); err != nil {
		return fmt.Errorf("rotate: %w", err)
	}
	w.opts.Logger.Info("audit log rotated", "path", w.path, "to", name)
	return nil
}

// notRotated is rotate's error when it changed nothing: the file is where
// it was, whole and synced, and can be written on (a file that cannot be
// renamed: append-only or immutable, chattr +a or +i). Before, that
// stopped the log for good, and a restart did not help: the next write
// tried again.
type notRotated struct{ err error }

func (e *notRotated) Error() string { return "rotate: " + e.err.Error() }

// renameLog renames the log file at a rotation. A variable for the tests.
var renameLog = os.Rename

// continueIn opens an empty file at the log's path (created, or with
// flag os.O_EXCL only created), locks it and makes it the file the chain
// continues in, closing the old one (rotate and reopen; I/O goroutine
// only, the old file synced). A file there that is not empty is not
// written into.
func (w *Writer) continueIn(flag int) error {
	f, err := os.OpenFile(w.path, os.O_RDWR|os.O_CREATE|os.O_APPEND|flag, 0o600)
	if err != nil {
		return err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return fmt.Errorf("lock %s: %w", w.path, err)
	}
	if st, err := f.Stat(); err != nil || st.Size() != 0 {
		f.Close()
		return fmt.Errorf("the log was moved away and %s is now another file: not writing into it", w.path)
	}
	syncDir(filepath.Dir(w.path))
	dropCache(w.f, w.cacheFrom, w.size)
	old := w.f
	w.f, w.size, w.fileFirst, w.fileLast, w.cacheFrom, w.rotateAt = f, 0, 0, 0, 0, 0
	w.placedSize, w.placedLast = 0, 0
	_ = old.Close()
	return nil
}

// syncDir fsyncs a directory so a rename or create in it is durable
// (fsperm.SyncDir). A variable for the tests.
var syncDir = fsperm.SyncDir

// fail records the first I/O error (I/O goroutine and syncer).
func (w *Writer) fail(err error) {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	if w.err == nil {
		w.err = w.wrap(err)
		w.opts.Logger.Error("audit log write failed; nothing more is written and calls are refused", "path", w.path, "err", err)
	}
	w.broken.Store(true)
	w.signalFailing()
}

// wrap makes an I/O error the log's: "audit: write PATH: …", or only
// "audit: …" when it names the file already (an *os.PathError of the log).
func (w *Writer) wrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Path == w.path {
		return fmt.Errorf("audit: %w", err)
	}
	return fmt.Errorf("audit: write %s: %w", w.path, err)
}

// signalFailing closes failSig once (errMu held).
func (w *Writer) signalFailing() {
	select {
	case <-w.failSig:
	default:
		close(w.failSig)
	}
}

// failed returns the first I/O error, or nil.
func (w *Writer) failed() error {
	w.errMu.Lock()
	defer w.errMu.Unlock()
	return w.err
}

// CheckTail says why Open (with RepairTail) would refuse to append to the
// log file at path (its end not a record, nor what a crash leaves),
// without changing the file; nil when Open would take it, or there is no
// file there. A running host's config watch checks an edited audit.path
// with it, as a restart would then fail. A crash's tail passes: it is
// also what a reader sees of a write in progress, in the log of a host
// running now.
func CheckTail(path string) error {
	f, err := openRegular(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	w := &Writer{f: f, path: path, opts: Options{RepairTail: true}}
	return w.loadTail(true)
}

// loadTail reads the last record of an existing log to continue its chain.
// An incomplete last line is cut (with RepairTail) only when it is what a
// crash during a write leaves, the beginning of a record or zeros, and
// only after the record before it checks: nothing of a file that is not
// an intact log is changed. dry (CheckTail): nothing is changed, only
// whether Open would refuse the file is said.
func (w *Writer) loadTail(dry bool) error {
	st, err := w.f.Stat()
	if err != nil {
		return fmt.Errorf("audit: %s: %w", w.path, err)
	}
	size := st.Size()
	if size == 0 {
		return nil
	}
	// Zeros at the end are what a power loss leaves where the writes
	// since the last fsync were, however many (sync_every records can be
	// megabytes): the last line is looked for before them.
	end, err := zerosStart(w.f, size)
	if err != nil {
		return fmt.Errorf("audit: read %s: %w", w.path, err)
	}
	tail, keep, err := lastLine(w.f, end, MaxLineBytes)
	if errors.Is(err, errNoLineEnd) {
		return fmt.Errorf("audit: refusing to append to %s: there is no line break in its last %d bytes, so it is not an audit log (check audit.path)", w.path, MaxLineBytes)
	}
	if err != nil {
		return fmt.Errorf("audit: read %s: %w", w.path, err)
	}
	cut := size - keep // the incomplete record, and the zeros after it
	if cut > 0 {
		if !crashTail(tail) {
			return fmt.Errorf("audit: refusing to append to %s: it ends with %d bytes that are not the beginning of a record (%s), not what a crash during a write leaves; check it with `aios-host audit verify %s`", w.path, len(tail), clipQuote(tail), w.path)
		}
		if !w.opts.RepairTail {
			return fmt.Errorf("audit: %s ends with an incomplete record of %d bytes (a crash during a write?); "+
				"check it with `aios-host audit verify`, then cut the last line or open with repair enabled", w.path, cut)
		}
	}
	if keep > 0 {
		// Records written before their strings were bounded could be
		// longer than MaxLineBytes: such a log still continues.
		last, _, err := lastLine(w.f, keep-1, maxOldLineBytes)
		if err != nil && !errors.Is(err, errNoLineEnd) {
			return fmt.Errorf("audit: read %s: %w", w.path, err)
		}
		reason := "its last line is longer than " + strconv.Itoa(maxOldLineBytes) + " bytes"
		var r record
		if err == nil {
			r, reason = checkLine(last)
		}
		if err == nil && len(bytes.TrimSpace(last)) == 0 {
			// Not "its last record is damaged": no record is, a
			// line break was added (echo >> FILE, or echo > FILE
			// meant to empty it).
			return fmt.Errorf("audit: refusing to append to %s: it ends with an empty line, which no record is (a line break added after the last record, or `echo > FILE` used to empty the log: truncate -s 0 empties it); remove that line, then check it with `aios-host audit verify %s`", w.path, w.path)
		}
		if reason != "" {
			return fmt.Errorf("audit: refusing to append to %s: its last record is damaged (%s); run `aios-host audit verify %s`", w.path, reason, w.path)
		}
		w.seq, w.prev = r.Seq, append(w.prev[:0], r.Hash...)
	}
	if cut > 0 && !dry {
		// A crash just before the newline leaves a whole record: it is
		// kept (the record of a call that ran), when it follows the one
		// before it (any, as the first line: it may follow a rotated
		// file, as a complete first line is taken). So is one followed
		// by zeros: a power loss lost the page its newline began (the
		// record ended at a page's end), and the zeros go.
		if r, reason := checkLine(tail); reason == "" && (keep == 0 || r.Seq == w.seq+1 && r.Prev == string(w.prev)) {
			w.opts.Logger.Warn("audit: adding the newline missing after the last record (a crash during a write)", "path", w.path, "seq", r.Seq, "zero_bytes_cut", size-end)
			if end < size {
				if err := w.f.Truncate(end); err != nil {
					return fmt.Errorf("audit: repair %s: %w", w.path, err)
				}
			}
			if _, err := w.f.Write([]byte{'\n'}); err != nil {
				return fmt.Errorf("audit: repair %s: %w", w.path, err)
			}
			if err := w.f.Sync(); err != nil {
				return fmt.Errorf("audit: repair %s: %w", w.path, err)
			}
			w.seq, w.prev = r.Seq, append(w.prev[:0], r.Hash...)
			return nil
		}
		w.opts.Logger.Warn("audit: cutting an incomplete last record", "path", w.path, "bytes", cut, "text", clipText(tail))
		if err := w.f.Truncate(keep); err != nil {
			return fmt.Errorf("audit: repair %s: %w", w.path, err)
		}
		if err := w.f.Sync(); err != nil {
			return fmt.Errorf("audit: repair %s: %w", w.path, err)
		}
	}
	return nil
}

// zerosStart returns where the zero bytes that end f's first size bytes
// begin (size when the last byte is not zero).
func zerosStart(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	for end := size; end > 0; {
		off := max(end-int64(len(buf)), 0)
		b := buf[:end-off]
		if _, err := f.ReadAt(b, off); err != nil && err != io.EOF {
			return 0, err
		}
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] != 0 {
				return off + int64(i) + 1, nil
			}
		}
		end = off
	}
	return 0, nil
}

// errNoLineEnd: lastLine found no line break within its limit.
var errNoLineEnd = errors.New("no line break")

// maxOldLineBytes bounds the last record Open reads: more than any record
// a writer ever wrote (strings were unbounded before, up to the 8 MiB
// request, escaped six-fold).
const maxOldLineBytes = 64 << 20

// lastLine returns the bytes of f before end that follow its last line
// break (all of them when there is none) and where they start. It reads
// backwards in growing chunks, and gives up (errNoLineEnd) past limit
// bytes.
func lastLine(f *os.File, end, limit int64) ([]byte, int64, error) {
	for chunk := int64(64 << 10); ; chunk *= 2 {
		off := max(end-chunk, 0)
		buf := make([]byte, end-off)
		if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
			return nil, 0, err
		}
		if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
			return buf[i+1:], off + int64(i+1), nil
		}
		if end-off > limit {
			return nil, 0, errNoLineEnd
		}
		if off == 0 {
			return buf, 0, nil
		}
	}
}

// recordStart begins every record the writer writes.
const recordStart = `{"call_id":"`

// crashTail reports whether b, an incomplete last line, is what a crash
// during a write leaves: the beginning of a record (a write is whole
// records, cut short), or zeros (a power loss can leave the pages of the
// last write unwritten).
func crashTail(b []byte) bool {
	if len(bytes.TrimLeft(b, "\x00")) == 0 {
		return true
	}
	n := min(len(b), len(recordStart))
	return string(b[:n]) == recordStart[:n]
}

// clipQuote quotes the first bytes of b for a message.
func clipQuote(b []byte) string {
	if len(b) > 80 {
		return strconv.Quote(string(b[:80])) + "…"
	}
	return strconv.Quote(string(b))
}

// clipText is the first bytes of b for a log attribute (which quotes it).
func clipText(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}
