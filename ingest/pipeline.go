// Package ingest reads ledgers into an audit with every core: it cuts an
// input into chunks of whole lines, decodes them in parallel (NDJSON
// records, mapped NDJSON or OTLP export lines) and hands each record to the
// shard that owns its operation, in input order. It accounts for every
// line as ndjson.Reader, the streaming reference it is tested against,
// does, and its report is byte-identical whatever the number of cores. It
// opens no files and writes no report: the caller hands it readers and
// prints what audit.Merge returns.
package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/fieldmap"
	"github.com/effectaudit/effectaudit/hugemem"
	"github.com/effectaudit/effectaudit/ndjson"
	"github.com/effectaudit/effectaudit/otlp"
)

// Options configure how inputs are read.
type Options struct {
	MaxLineBytes int       // 0 means ndjson.DefaultMaxLineBytes
	Rejects      io.Writer // if set, every invalid line is written here verbatim
	// Record, if set, sees every valid record after the audit has, from the
	// goroutine that owns the record's operation: all records of one
	// operation in input order. Its strings alias reused buffers: Clone what
	// you keep. explain uses it to keep one operation's records.
	Record func(rec *audit.Record)

	Workers   int // goroutines decoding lines; 0 means GOMAXPROCS
	Shards    int // goroutines aggregating operations; 0 means GOMAXPROCS
	ChunkSize int // bytes per chunk of lines; 0 means 256 KiB

	// KeepInvalid limits how many invalid lines are kept for the report (all
	// are counted): the first n if n > 0, none if n < 0, all if n is 0.
	KeepInvalid int

	// Fields maps other NDJSON shapes onto ledger fields (nil: none); OTLP
	// selects and maps the spans of OTLP inputs.
	Fields *fieldmap.Map
	OTLP   otlp.Mapping
}

// Input is one named stream of NDJSON.
type Input struct {
	Name string
	R    io.Reader
	OTLP bool // lines are OTLP/JSON export requests, not ledger records
}

// ReadError is a failure to read an input (as opposed to invalid content):
// the audit cannot complete.
type ReadError struct {
	Input string
	Err   error
}

func (e *ReadError) Error() string { return fmt.Sprintf("%s: %v", e.Input, e.Err) }

func (e *ReadError) Unwrap() error { return e.Err }

// Pipeline audits inputs with every core: a chunker cuts each input into
// blocks of whole lines, workers parse and decode blocks in parallel, and
// shards aggregate the records of disjoint sets of operations. Blocks are
// handed to shards in input order, so each operation's records reach its
// shard in order and the report does not depend on the number of cores.
type Pipeline struct {
	opts   Options
	shards []*audit.Auditor
	books  *audit.Auditor // lines and invalid lines, booked in input order
	report *audit.Report  // once merged

	reasons map[string]string // see reason
	pool    chan []byte       // chunk buffers, shared by the inputs read in turn

	records atomic.Int64 // for progress reports
	ops     atomic.Int64

	batches sync.Pool // of *shardBatch, reused across chunks
}

// New returns a pipeline whose first shard newAuditor makes; the others are
// its siblings (see audit.Auditor.Sibling), with its policy.
func New(opts Options, newAuditor func() *audit.Auditor) *Pipeline {
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = ndjson.DefaultMaxLineBytes
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Shards <= 0 {
		opts.Shards = runtime.GOMAXPROCS(0)
	}
	if opts.ChunkSize <= 0 {
		// Small enough that a chunk's records are still in cache when its
		// shards read them, large enough that handing chunks on costs
		// little: measured against 128 KiB and 1 MiB.
		opts.ChunkSize = 256 << 10
	}
	// The books hold no operations: a plain Auditor, without a policy.
	p := &Pipeline{opts: opts, books: audit.New(nil)}
	p.books.KeepInvalid(opts.KeepInvalid)
	// The shards are siblings: one hash of an operation id, taken by the
	// worker that decodes its record, both routes the record and finds the
	// operation in its shard (and the worker hashes the key pair, too).
	p.shards = append(p.shards, newAuditor())
	for range opts.Shards - 1 {
		p.shards = append(p.shards, p.shards[0].Sibling())
	}
	return p
}

// Records returns how many valid records have been audited so far; it may
// be called while Read runs.
func (p *Pipeline) Records() int64 { return p.records.Load() }

// Operations returns how many operations have been seen so far; it may be
// called while Read runs.
func (p *Pipeline) Operations() int64 { return p.ops.Load() }

// Report merges the shards into the audit's report, once: the pipeline
// reads no more after it, and later calls return the same report.
func (p *Pipeline) Report() *audit.Report {
	if p.report == nil {
		p.report = audit.Merge(append([]*audit.Auditor{p.books}, p.shards...)...)
	}
	return p.report
}

// decoded is a worker's result for one chunk.
type decoded struct {
	ch      *chunk
	batches []*shardBatch // one per shard; nil for a chunk of one over-long line
	invalid []invalidLine
	lines   int
	blank   int
	records int          // lines that held records
	pending atomic.Int32 // holders of ch.buf: the sequencer and each shard
}

type invalidLine struct {
	err   *ndjson.ParseError
	raw   []byte     // into the chunk
	spool *spoolFile // instead of raw: an over-long line kept whole
}

// feedDepth is how many chunks a shard may have waiting. The sequencer
// hands every chunk to every shard in turn, so a shard that is briefly
// slower (growing a table, say) holds up the others once its feed is full.
// Measured at 10M records, 8 rather than 2 cut reading by a tenth; 32 gained
// no more and held 35 MiB more.
const feedDepth = 8

// Read audits one input, the index-th of the run. Inputs are read one after
// another, never at once (they share the chunk buffers and the books), and
// none after Report.
func (p *Pipeline) Read(in Input, index int) error {
	r := &reading{p: p, in: in, index: index, stop: make(chan struct{})}
	chunks := r.startChunker(p.fillPool())
	results := r.startWorkers(chunks)
	feeds, shardsDone := r.startShards()
	seqErr := r.sequence(results, feeds)
	for _, f := range feeds {
		close(f)
	}
	shardsDone.Wait()
	return errors.Join(r.readErr, seqErr)
}

// fillPool returns the chunk buffers' pool, topped up. The buffers serve
// every input of the run: each input making its own cost several megabytes
// of fresh memory a file, which made runs over thousands of small files
// spend most of their time clearing it. Every buffer is back in the pool
// when Read returns, unless a failure stopped the input early.
func (p *Pipeline) fillPool() chan []byte {
	nbuf := 2*p.opts.Workers + feedDepth*len(p.shards) + 2
	if p.pool == nil {
		p.pool = make(chan []byte, nbuf)
	}
	for len(p.pool) < nbuf {
		p.pool <- hugemem.Bytes(p.opts.ChunkSize)[:0]
	}
	return p.pool
}

// reading is the read of one input: a chunker cuts it into chunks, workers
// decode them, a sequencer puts them back in input order and hands them to
// the shards. stop, closed by halt, stops the chunker and the workers when
// reading fails.
type reading struct {
	p     *Pipeline
	in    Input
	index int
	pool  chan []byte

	stop     chan struct{}
	stopOnce sync.Once
	readErr  error // the chunker's; read once chunks is closed
}

func (r *reading) halt() { r.stopOnce.Do(func() { close(r.stop) }) }

// startChunker starts cutting the input into chunks of whole lines, in
// buffers from pool.
func (r *reading) startChunker(pool chan []byte) <-chan *chunk {
	p := r.p
	r.pool = pool
	c := &chunker{r: r.in.R, max: p.opts.MaxLineBytes, size: p.opts.ChunkSize, pool: pool, stop: r.stop, line: 1,
		spool: p.opts.Rejects != nil}
	chunks := make(chan *chunk, p.opts.Workers)
	go func() {
		defer close(chunks)
		for {
			ch, err := c.next()
			if err == io.EOF || err == errStopped {
				return
			}
			if err != nil {
				r.readErr = &ReadError{Input: r.in.Name, Err: err}
				r.halt()
				return
			}
			select {
			case chunks <- ch:
			case <-r.stop:
				return
			}
		}
	}()
	return chunks
}

// startWorkers starts decoding chunks on every worker, in whatever order
// they finish; results is closed once they all have.
func (r *reading) startWorkers(chunks <-chan *chunk) <-chan *decoded {
	p := r.p
	results := make(chan *decoded, p.opts.Workers)
	var workers sync.WaitGroup
	for range p.opts.Workers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			w := worker{shards: len(p.shards), max: p.opts.MaxLineBytes, input: r.index, batch: p.getBatch, hasher: p.shards[0]}
			if p.opts.Fields != nil {
				w.fields = p.opts.Fields.Clone() // a Map keeps scratch space
			}
			if r.in.OTLP {
				w.otlp = &otlp.Converter{Mapping: p.opts.OTLP}
			}
			for ch := range chunks {
				select {
				case results <- w.decode(ch):
				case <-r.stop:
				}
			}
		}()
	}
	go func() {
		workers.Wait()
		close(results)
	}()
	return results
}

// release gives d's chunk buffer back to the pool once its last holder, of
// the sequencer and the shards, is done with it.
func (r *reading) release(d *decoded) {
	if d.pending.Add(-1) == 0 {
		r.pool <- d.ch.buf[:0]
	}
}

// startShards starts each shard on a feed of its own, consuming its
// batches in chunk order; done is done once every feed is closed and
// drained.
func (r *reading) startShards() (feeds []chan *decoded, done *sync.WaitGroup) {
	p := r.p
	feeds = make([]chan *decoded, len(p.shards))
	done = new(sync.WaitGroup)
	for s, a := range p.shards {
		feeds[s] = make(chan *decoded, feedDepth)
		done.Add(1)
		go func() {
			defer done.Done()
			for d := range feeds[s] {
				if b := d.batches[s]; b != nil {
					before := a.Operations()
					a.AddHashed(b.recs, b.hashes)
					if p.opts.Record != nil {
						for i := range b.recs {
							p.opts.Record(&b.recs[i])
						}
					}
					p.records.Add(int64(len(b.recs)))
					p.ops.Add(int64(a.Operations() - before))
					p.batches.Put(b)
				}
				r.release(d)
			}
		}()
	}
	return feeds, done
}

// sequence restores input order: it books each chunk's lines in turn and
// hands the chunk to every shard, and returns the first booking error,
// after which it halts the reading but still drains the results.
func (r *reading) sequence(results <-chan *decoded, feeds []chan *decoded) error {
	var seqErr error
	waiting := map[int]*decoded{}
	next := 0
	for d := range results {
		waiting[d.ch.seq] = d
		for {
			d, ok := waiting[next]
			if !ok {
				break
			}
			delete(waiting, next)
			next++
			if seqErr == nil {
				seqErr = r.p.account(r.in.Name, r.index, d)
				if seqErr != nil {
					r.halt()
				}
			}
			d.pending.Store(int32(len(feeds)) + 1)
			for s := range feeds {
				feeds[s] <- d
			}
			r.release(d)
		}
	}
	return seqErr
}

// account books a chunk's lines and invalid lines, in input order.
func (p *Pipeline) account(name string, index int, d *decoded) error {
	a := p.books
	a.AddLines(d.lines, d.blank, d.records)
	for _, inv := range d.invalid {
		a.AddInvalid(audit.Invalid{
			Input: name,
			Line:  inv.err.Line,
			Error: p.reason(inv.err),
			Pos:   audit.Position{Input: index, Line: inv.err.Line},
		})
		if p.opts.Rejects != nil {
			if err := p.reject(inv); err != nil {
				return fmt.Errorf("writing rejects: %w", err)
			}
		}
	}
	return nil
}

// reason is Reason, with messages the audit keeps shared: a ledger with
// millions of invalid lines has few distinct messages, and a report that
// lists them all keeps each line's. Up to maxReasons are shared.
func (p *Pipeline) reason(pe *ndjson.ParseError) string {
	r := Reason(pe)
	if kept, ok := p.reasons[r]; ok {
		return kept
	}
	if len(p.reasons) < maxReasons {
		if p.reasons == nil {
			p.reasons = map[string]string{}
		}
		p.reasons[r] = r
	}
	return r
}

// maxReasons bounds the messages Pipeline.reason shares, so that lines with
// ever new messages (each with its own column, say) cost no more than
// before.
const maxReasons = 4096

// shardBatch is a chunk's records for one shard, with the HashRecord of
// each.
type shardBatch struct {
	recs   []audit.Record
	hashes []audit.RecordHash
}

func (p *Pipeline) getBatch(capacity int) *shardBatch {
	if b, ok := p.batches.Get().(*shardBatch); ok && cap(b.recs) >= capacity {
		b.recs, b.hashes = b.recs[:0], b.hashes[:0]
		return b
	}
	return &shardBatch{recs: make([]audit.Record, 0, capacity), hashes: make([]audit.RecordHash, 0, capacity)}
}

// worker decodes chunks; each has its own parser.
type worker struct {
	batch  func(capacity int) *shardBatch
	hasher *audit.Auditor  // a shard, whose HashRecord serves them all
	pair   []byte          // HashRecord's scratch
	fields *fieldmap.Map   // nil: ledger fields as they are
	otlp   *otlp.Converter // set for OTLP inputs
	parser ndjson.Parser
	dec    audit.Decoder // new for each chunk: records alias its scratch
	// declined counts the lines in a row audit.DecodeLine declined.
	declined int
	shards   int
	max      int
	input    int
}

func (w *worker) decode(ch *chunk) *decoded {
	d := &decoded{ch: ch, batches: make([]*shardBatch, w.shards)}
	if ch.long {
		d.lines = 1
		d.invalid = append(d.invalid, invalidLine{
			err: ndjson.LineTooLong(ch.firstLine, ch.offset, ch.longLength, w.max), raw: ch.data, spool: ch.spool})
		return d
	}
	w.dec = audit.Decoder{}
	// Growing a batch record by record would copy it over and over.
	const minRecordBytes = 128
	for s := range d.batches {
		d.batches[s] = w.batch(len(ch.data)/minRecordBytes/w.shards + 16)
	}
	data := ch.data
	line := ch.firstLine
	offset := ch.offset
	for len(data) > 0 {
		end := bytes.IndexByte(data, '\n')
		size, lf := end+1, end >= 0
		if !lf {
			end, size = len(data), len(data)
		}
		raw := data[:end]
		content := raw
		if lf && len(content) > 0 && content[len(content)-1] == '\r' {
			// CR LF ends the line; a CR at the end of the input, with no
			// LF after it, is the line's, as ndjson.Reader has it.
			content = content[:len(content)-1]
		}
		d.lines++
		switch {
		case len(content) > w.max:
			d.invalid = append(d.invalid, invalidLine{
				err: ndjson.LineTooLong(line, offset, int64(len(content)), w.max), raw: raw})
		case ndjson.Blank(content):
			d.blank++
		default:
			if err := w.record(d, content, line, offset); err != nil {
				d.invalid = append(d.invalid, invalidLine{err: err, raw: raw})
			}
		}
		data = data[size:]
		line++
		offset += int64(size)
	}
	return d
}

// record parses and decodes one line into its shard's batch.
func (w *worker) record(d *decoded, content []byte, line int, offset int64) *ndjson.ParseError {
	pos := audit.Position{Input: w.input, Line: line}
	// DecodeLine declines a line of unusual shape only where it meets the
	// unusual part, maybe at its end: a ledger whose lines all have that
	// shape would pay for reading each twice. After a run of declines it
	// is tried on one line in probeEvery, to notice the shape change.
	if w.otlp == nil && w.fields == nil && (w.declined < declinedRun || line%probeEvery == 0) {
		if rec, ok := audit.DecodeLine(content, pos); ok {
			w.declined = 0
			w.route(d, &rec)
			d.records++
			return nil
		}
		w.declined++
	}
	members, err := w.parser.Parse(content)
	if err != nil {
		var pe *ndjson.ParseError
		if !errors.As(err, &pe) {
			pe = &ndjson.ParseError{Err: err}
		}
		pe.Line, pe.Offset = line, offset
		return pe
	}
	if w.otlp != nil {
		// A converted record aliases the converter's buffers until the next
		// line; batches outlive that.
		err := w.otlp.Convert(content, pos, func(r *audit.Record) {
			rec := r.Clone()
			rec.Pos.Seq = pos.Seq
			pos.Seq++
			w.route(d, &rec)
		})
		if err != nil {
			// Some spans failed: the line is invalid, but the records of
			// its other spans, emitted above, are audited (see Convert).
			return &ndjson.ParseError{Line: line, Offset: offset, Err: err}
		}
		d.records++
		return nil
	}
	if w.fields != nil {
		if members, err = w.fields.Members(members); err != nil {
			return &ndjson.ParseError{Line: line, Offset: offset, Err: err}
		}
	}
	// Mapped or not, the record's strings alias the line or the decoder's
	// scratch space, which last as long as the chunk: the map's scratch
	// space holds only member names and the list of members.
	rec, err := w.dec.Decode(members, pos)
	if err != nil {
		return &ndjson.ParseError{Line: line, Offset: offset, Err: mappedFrom(err, w.fields)}
	}
	w.route(d, &rec)
	d.records++
	return nil
}

// mappedFrom names, in an error about a field that fields maps, the path
// the field's value was read from: the line has no member of the field's
// own name for a user to look for.
func mappedFrom(err error, fields *fieldmap.Map) error {
	var fe *audit.FieldError
	if !errors.As(err, &fe) || fe.Field == "" {
		return err
	}
	path, ok := fields.Source(fe.Field)
	if !ok {
		return err
	}
	return &mappedFieldError{path: path, err: fe}
}

// mappedFieldError is a FieldError about a mapped field, with its path.
type mappedFieldError struct {
	path string
	err  *audit.FieldError
}

func (e *mappedFieldError) Error() string {
	return fmt.Sprintf("field %q (mapped from %q): %s", e.err.Field, e.path, e.err.Msg)
}

func (e *mappedFieldError) Unwrap() error { return e.err }

// After declinedRun lines in a row that DecodeLine declines, a worker tries
// it on one line in probeEvery only.
const (
	declinedRun = 16
	probeEvery  = 64
)

// route puts rec in the batch of the shard that owns its operation, picked
// by the high half of the hash the shard indexes the operation by the low
// half of.
func (w *worker) route(d *decoded, rec *audit.Record) {
	var h audit.RecordHash
	h, w.pair = w.hasher.HashRecord(rec, w.pair)
	s := int((h.Op >> 32) % uint64(w.shards))
	b := d.batches[s]
	b.recs = append(b.recs, *rec)
	b.hashes = append(b.hashes, h)
}

// Reason renders a line's error without its position, which the caller
// prints as input:line.
func Reason(pe *ndjson.ParseError) string {
	if pe.Column > 0 {
		return fmt.Sprintf("column %d: %v", pe.Column, pe.Err)
	}
	return pe.Err.Error()
}

// reject writes an invalid line to the rejects, from its spool file when
// the line was too long to hold.
func (p *Pipeline) reject(inv invalidLine) error {
	if inv.spool == nil {
		return writeLine(p.opts.Rejects, inv.raw)
	}
	defer inv.spool.release()
	if _, err := inv.spool.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.Copy(p.opts.Rejects, inv.spool); err != nil {
		return err
	}
	_, err := p.opts.Rejects.Write([]byte{'\n'})
	return err
}

func writeLine(w io.Writer, line []byte) error {
	if _, err := w.Write(line); err != nil {
		return err
	}
	_, err := w.Write([]byte{'\n'})
	return err
}
