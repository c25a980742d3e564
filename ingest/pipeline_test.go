package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/fieldmap"
	"github.com/effectaudit/effectaudit/ndjson"
	"github.com/effectaudit/effectaudit/otlp"
	"github.com/effectaudit/effectaudit/report"
	"github.com/effectaudit/effectaudit/synth"
)

// reference audits input the simplest way: ndjson.Reader, one record at a
// time, one Auditor. The pipeline must agree with it exactly.
func reference(t testing.TB, input []byte, max int) (*audit.Report, string) {
	t.Helper()
	a := audit.New(nil)
	r := ndjson.NewReader(bytes.NewReader(input))
	r.MaxLineBytes = max
	var rejects bytes.Buffer
	invalid := 0
	for {
		line, err := r.Read()
		if err == io.EOF {
			break
		}
		var pe *ndjson.ParseError
		if err == nil {
			var d audit.Decoder
			rec, derr := d.Decode(line.Members, audit.Position{Line: line.Line})
			if derr == nil {
				a.Add(&rec)
				continue
			}
			pe = &ndjson.ParseError{Line: line.Line, Offset: line.Offset, Err: derr}
		} else if !errors.As(err, &pe) {
			t.Fatalf("Read: %v", err)
		}
		a.AddInvalid(audit.Invalid{Input: "in", Line: pe.Line, Error: Reason(pe), Pos: audit.Position{Line: pe.Line}})
		invalid++
		raw := r.RawLine()
		if errors.Is(pe, ndjson.ErrLineTooLong) {
			// The reader keeps only a prefix; rejects hold the whole line.
			raw = input[pe.Offset:]
			if end := bytes.IndexByte(raw, '\n'); end >= 0 {
				raw = raw[:end]
			}
			if pe.Line == 1 {
				raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf"))
			}
		}
		rejects.Write(raw)
		rejects.WriteByte('\n')
	}
	a.AddLines(r.Lines(), r.BlankLines(), r.Lines()-r.BlankLines()-invalid)
	return a.Report(), rejects.String()
}

func render(t testing.TB, rep *audit.Report) string {
	t.Helper()
	p, err := report.New("json", report.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Print(&buf, rep); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

type config struct{ workers, shards, chunk int }

var configs = []config{{1, 1, 0}, {2, 2, 0}, {8, 8, 0}, {2, 3, 64}, {3, 2, 100}, {1, 4, 333}, {4, 1, 4096}}

func runPipeline(t testing.TB, input []byte, max int, c config, r io.Reader) (*audit.Report, string) {
	t.Helper()
	var rejects bytes.Buffer
	p := New(Options{MaxLineBytes: max, Rejects: &rejects, Workers: c.workers, Shards: c.shards, ChunkSize: c.chunk},
		func() *audit.Auditor { return audit.New(nil) })
	if r == nil {
		r = bytes.NewReader(input)
	}
	if err := p.Read(Input{Name: "in", R: r}, 0); err != nil {
		t.Fatalf("Read: %v", err)
	}
	return p.Report(), rejects.String()
}

func synthLedger(t testing.TB, ops int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := synth.Generate(synth.Config{Ops: ops, Seed: 3, Window: 64}, &buf, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// nestedThenFlat gives the first half of ledger's lines a nested member.
func nestedThenFlat(ledger []byte) []byte {
	lines := bytes.SplitAfter(ledger, []byte("\n"))
	var out bytes.Buffer
	for i, line := range lines {
		if i < len(lines)/2 {
			line = bytes.Replace(line, []byte("}\n"), []byte(`,"meta":{"n":[1]}}`+"\n"), 1)
		}
		out.Write(line)
	}
	return out.Bytes()
}

const edgeInput = "\xef\xbb\xbf{\"type\":\"effect\",\"operationId\":\"op-1\",\"effectRef\":\"r1\"}\r\n" +
	"\n   \n\t\r\n" +
	`{"type":"effect","operationId":"op-\u0031","effectRef":"r\u0032"}` + "\n" +
	`{"type":"attempt","operationId":"op-2","attemptId":"a","padding":"` + "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" + `"}` + "\r\n" +
	"not json\n" +
	`{"type":"attempt","operationId":"op-3","attemptId":"a","idempotencyKey":"k","payloadHash":"h1"}` + "\n" +
	`{"type":"attempt","operationId":"op-4","attemptId":"a","idempotencyKey":"k","payloadHash":"h2"}` + "\n" +
	`{"type":"effect","operationId":"op-3","effectRef":7}` + "\n" +
	"[1,2]\r\n" +
	`{"type":"effect","operationId":"op-5","result":"absent"}`

// TestPipelineMatchesReader checks that cutting the input into chunks,
// decoding on several workers and aggregating on several shards gives the
// report and rejects of the plain one-record-at-a-time reader, byte for
// byte, whatever the number of goroutines.
func TestPipelineMatchesReader(t *testing.T) {
	inputs := map[string]struct {
		data []byte
		max  int
	}{
		"synthetic": {synthLedger(t, 3000), 0},
		// Lines the one-pass decoder declines, then lines it reads: a worker
		// that has stopped trying it on every line must notice the change.
		"nested then flat": {nestedThenFlat(synthLedger(t, 3000)), 0},
		"edges":            {[]byte(edgeInput), 120},
		"edges-tight":      {[]byte(edgeInput), 70},
		"empty":            {nil, 0},
		"bom only":         {[]byte("\xef\xbb\xbf"), 0},
		"no newline":       {[]byte(`{"type":"effect","operationId":"o","effectRef":"r"}`), 0},
		"long last":        {[]byte("{}\n" + strings.Repeat("x", 300)), 100},
	}
	for name, in := range inputs {
		wantRep, wantRejects := reference(t, in.data, in.max)
		want := render(t, wantRep)
		for _, c := range configs {
			t.Run(fmt.Sprintf("%s/w%d-s%d-c%d", name, c.workers, c.shards, c.chunk), func(t *testing.T) {
				rep, rejects := runPipeline(t, in.data, in.max, c, nil)
				if diff := cmp.Diff(want, render(t, rep)); diff != "" {
					t.Errorf("report (-reader +pipeline):\n%s", diff)
				}
				if diff := cmp.Diff(wantRejects, rejects); diff != "" {
					t.Errorf("rejects (-reader +pipeline):\n%s", diff)
				}
			})
		}
	}
}

// TestPipelineSmallReads feeds the input a byte at a time.
func TestPipelineSmallReads(t *testing.T) {
	data := []byte(edgeInput)
	want, _ := reference(t, data, 120)
	got, _ := runPipeline(t, data, 120, config{2, 2, 64}, iotest.OneByteReader(bytes.NewReader(data)))
	if diff := cmp.Diff(render(t, want), render(t, got)); diff != "" {
		t.Errorf("report (-reader +pipeline):\n%s", diff)
	}
}

// TestPipelineReadError makes sure a failing input ends the run with an
// error that names it, and does not hang.
func TestPipelineReadError(t *testing.T) {
	data := synthLedger(t, 500)
	r := io.MultiReader(bytes.NewReader(data), iotest.ErrReader(errors.New("disk on fire")))
	p := New(Options{Workers: 2, Shards: 2, ChunkSize: 256}, func() *audit.Auditor { return audit.New(nil) })
	err := p.Read(Input{Name: "ledger.ndjson", R: r}, 0)
	var re *ReadError
	if !errors.As(err, &re) || re.Input != "ledger.ndjson" || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("Read error = %v, want a *ReadError naming the input and cause", err)
	}
	// The error names the line reading stopped in: the one after the last
	// whole line, wherever the chunk it fell in started.
	for _, chunk := range []int{256, 1 << 20} {
		for _, tail := range []string{"", `{"type":"eff`} {
			input := append(slices.Clone(data), tail...)
			lines := bytes.Count(input, []byte{'\n'})
			r := io.MultiReader(bytes.NewReader(input), iotest.ErrReader(errors.New("disk on fire")))
			p := New(Options{Workers: 2, Shards: 2, ChunkSize: chunk}, func() *audit.Auditor { return audit.New(nil) })
			err := p.Read(Input{Name: "ledger.ndjson", R: r}, 0)
			if want := fmt.Sprintf("reading line %d:", lines+1); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("chunks of %d, tail %q: Read error = %v; want one saying %q", chunk, tail, err, want)
			}
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("rejects disk full") }

func TestPipelineRejectsWriteError(t *testing.T) {
	p := New(Options{Rejects: failWriter{}, ChunkSize: 64}, func() *audit.Auditor { return audit.New(nil) })
	err := p.Read(Input{Name: "in", R: strings.NewReader(strings.Repeat("bad\n", 1000))}, 0)
	if err == nil || !strings.Contains(err.Error(), "rejects disk full") {
		t.Fatalf("Read error = %v, want the rejects write error", err)
	}
}

// TestTruth checks the audit against the generator's intended labels.
func TestTruth(t *testing.T) { checkTruth(t, 20000, 11) }

func checkTruth(t *testing.T, ops int, seed int64) {
	var ledger, truth bytes.Buffer
	if _, err := synth.Generate(synth.Config{Ops: ops, Seed: seed}, &ledger, &truth); err != nil {
		t.Fatal(err)
	}
	want, order, err := synth.Truth(&truth)
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := runPipeline(t, ledger.Bytes(), 0, config{2, 2, 0}, nil)
	got := map[string]string{}
	var gotOrder []string
	rep.Operations(func(o *audit.Operation) error {
		got[o.OperationID] = string(o.Label)
		gotOrder = append(gotOrder, o.OperationID)
		return nil
	})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("labels (-truth +audit):\n%s", diff)
	}
	if diff := cmp.Diff(order, gotOrder); diff != "" {
		t.Errorf("order (-truth +audit):\n%s", diff)
	}
}

func FuzzPipeline(f *testing.F) {
	f.Add([]byte(edgeInput), uint8(70), uint8(2), uint8(3), uint16(64))
	f.Add([]byte("{}\n\n{\"type\":\"effect\",\"operationId\":\"a\",\"effectRef\":\"b\"}"), uint8(0), uint8(1), uint8(1), uint16(1))
	f.Fuzz(func(t *testing.T, data []byte, max uint8, workers, shards uint8, chunk uint16) {
		c := config{int(workers%4) + 1, int(shards%4) + 1, int(chunk%512) + 1}
		m := int(max)
		wantRep, wantRejects := reference(t, data, m)
		rep, rejects := runPipeline(t, data, m, c, nil)
		if diff := cmp.Diff(render(t, wantRep), render(t, rep)); diff != "" {
			t.Errorf("report (-reader +pipeline):\n%s", diff)
		}
		if wantRejects != rejects {
			t.Errorf("rejects differ: %q vs %q", wantRejects, rejects)
		}
	})
}

// TestOTLPDeterministic checks that spans of one OTLP line keep their order
// of appearance whatever the number of shards, and label as the fixture.
func TestOTLPDeterministic(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "otlp", "testdata", "four-operations.otlp.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, c := range configs {
		p := New(Options{Workers: c.workers, Shards: c.shards, ChunkSize: c.chunk, OTLP: otlp.DefaultMapping()},
			func() *audit.Auditor { return audit.New(nil) })
		if err := p.Read(Input{Name: "otlp", R: bytes.NewReader(data), OTLP: true}, 0); err != nil {
			t.Fatal(err)
		}
		got := render(t, p.Report())
		if want == "" {
			want = got
			labels := map[string]audit.Label{}
			for _, o := range p.Report().OperationList() {
				labels[o.OperationID] = o.Label
			}
			wantLabels := map[string]audit.Label{"op-ticket-42": audit.Healthy, "op-webhook-77": audit.Duplicate,
				"op-vm-5": audit.KeyConflict, "op-email-3": audit.Uncertain}
			if diff := cmp.Diff(wantLabels, labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("w%d-s%d-c%d: report (-first +this):\n%s", c.workers, c.shards, c.chunk, diff)
		}
	}
}

// TestOTLPBadSpans checks an OTLP input whose lines mix valid spans with
// bad ones, among metrics exports (a file exporter serving several
// pipelines): the valid spans of a line with bad ones are audited, and the
// line counted as invalid and rejected verbatim, while a metrics line is a
// record line of no span; so an operation whose second effect shares a
// line with a bad span is a duplicate. The report and the rejects are the
// same whatever the number of goroutines and the chunk size.
func TestOTLPBadSpans(t *testing.T) {
	span := func(id, attrs string) string {
		return `{"spanId":"` + id + `","endTimeUnixNano":"1795942800120000000","attributes":[` + attrs + `],"status":{"code":1}}`
	}
	attr := func(k, v string) string { return `{"key":"` + k + `","value":{"stringValue":"` + v + `"}}` }
	line := func(spans ...string) string {
		return `{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[` + strings.Join(spans, ",") + `]}]}]}` + "\n"
	}
	bad := span("00000000000000b9", attr("effect.record", "attempt")) // no operation id
	const metrics = `{"resourceMetrics":[{"resource":{},"scopeMetrics":[{"metrics":[{"name":"calls","sum":{"dataPoints":[{"asInt":"3"}]}}]}]}]}` + "\n"
	const ops = 300
	var input, wantRejects strings.Builder
	for i := range ops {
		op := attr("effect.operation_id", fmt.Sprintf("op-%d", i))
		attempt := line(span(fmt.Sprintf("%016x", i+1), attr("effect.record", "attempt")+","+op), bad)
		effect2 := line(bad, span("00000000000000e2", attr("effect.record", "effect")+","+op+","+attr("effect.ref", "charge-2")))
		input.WriteString(attempt)
		input.WriteString(line(span("00000000000000e1", attr("effect.record", "effect")+","+op+","+attr("effect.ref", "charge-1"))))
		input.WriteString(metrics)
		input.WriteString(effect2)
		wantRejects.WriteString(attempt + effect2)
	}
	want := audit.Summary{
		Lines: 4 * ops, Records: 2 * ops, InvalidLines: 2 * ops, // lines = blank + records + invalid
		Attempts: ops, EffectObservations: 2 * ops, Operations: ops,
	}
	var first string
	for _, c := range configs {
		var rejects bytes.Buffer
		p := New(Options{Rejects: &rejects, Workers: c.workers, Shards: c.shards, ChunkSize: c.chunk, OTLP: otlp.DefaultMapping()},
			func() *audit.Auditor { return audit.New(nil) })
		if err := p.Read(Input{Name: "otlp", R: strings.NewReader(input.String()), OTLP: true}, 0); err != nil {
			t.Fatal(err)
		}
		rep := p.Report()
		got := rep.Summary
		got.Labels, got.Findings = nil, nil
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("w%d-s%d-c%d: summary (-want +got):\n%s", c.workers, c.shards, c.chunk, diff)
		}
		if n := rep.Summary.Labels[audit.Duplicate]; n != ops {
			t.Errorf("w%d-s%d-c%d: %d duplicates, want %d", c.workers, c.shards, c.chunk, n, ops)
		}
		if diff := cmp.Diff(wantRejects.String(), rejects.String()); diff != "" {
			t.Errorf("w%d-s%d-c%d: rejects (-want +got):\n%s", c.workers, c.shards, c.chunk, diff)
		}
		if out := render(t, rep); first == "" {
			first = out
		} else if diff := cmp.Diff(first, out); diff != "" {
			t.Errorf("w%d-s%d-c%d: report (-first +this):\n%s", c.workers, c.shards, c.chunk, diff)
		}
	}
}

// TestPipelineMapsFields checks that a ledger whose fields sit elsewhere,
// read with a field map, gives the report of the plain ledger whatever the
// number of goroutines: the records of mapped lines, escaped values among
// them, must outlive the map's scratch space as plain ones do.
func TestPipelineMapsFields(t *testing.T) {
	plain := synthLedger(t, 3000)
	id := regexp.MustCompile(`"operationId":"([^"]*)"`)
	var mapped bytes.Buffer
	for i, line := range bytes.SplitAfter(plain, []byte("\n")) {
		line = id.ReplaceAllFunc(line, func(m []byte) []byte {
			v := id.FindSubmatch(m)[1]
			if i%3 == 0 { // an escaped value, which the decoder unquotes into its scratch space
				v = bytes.ReplaceAll(v, []byte("-"), []byte(`\u002d`))
			}
			return []byte(`"meta":{"trace":1,"op":"` + string(v) + `"}`)
		})
		mapped.Write(bytes.Replace(line, []byte(`"effectRef":`), []byte(`"ref":`), 1))
	}
	fields, err := fieldmap.Parse([]string{"operationId=meta.op", "effectRef=ref"})
	if err != nil {
		t.Fatal(err)
	}
	want := render(t, reportOnly(runPipeline(t, plain, 0, config{1, 1, 0}, nil)))
	for _, c := range configs {
		t.Run(fmt.Sprintf("w%d-s%d-c%d", c.workers, c.shards, c.chunk), func(t *testing.T) {
			p := New(Options{Workers: c.workers, Shards: c.shards, ChunkSize: c.chunk, Fields: fields},
				func() *audit.Auditor { return audit.New(nil) })
			if err := p.Read(Input{Name: "in", R: bytes.NewReader(mapped.Bytes())}, 0); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, render(t, p.Report())); diff != "" {
				t.Errorf("report (-plain +mapped):\n%s", diff)
			}
		})
	}
}

// reportOnly returns the report of a runPipeline, dropping its rejects.
func reportOnly(rep *audit.Report, _ string) *audit.Report { return rep }

// TestInvalidReasonsShared checks that invalid lines with the same message
// share its bytes, up to maxReasons distinct messages, and that every line
// still gets its own message, as the reference words it.
func TestInvalidReasonsShared(t *testing.T) {
	var input bytes.Buffer
	for i := range maxReasons + 10 {
		input.WriteString("not json\n")
		// A different column each time: one distinct message a line.
		fmt.Fprintf(&input, "{%s\n", strings.Repeat(" ", i))
	}
	want, _ := reference(t, input.Bytes(), 0)
	got, _ := runPipeline(t, input.Bytes(), 0, config{2, 2, 64}, nil)
	if diff := cmp.Diff(want.Invalid, got.Invalid); diff != "" {
		t.Fatalf("invalid lines (-reference +pipeline):\n%s", diff)
	}
	shared := unsafe.StringData(got.Invalid[0].Error)
	for i, inv := range got.Invalid {
		if i%2 == 0 && unsafe.StringData(inv.Error) != shared {
			t.Fatalf("line %d: the message %q is a copy of line 1's", inv.Line, inv.Error)
		}
	}
}

// TestBuffersServeEveryInput checks that the chunk buffers are made once
// for the run, not for each input: a run over thousands of small files
// would otherwise spend most of its time clearing fresh memory.
func TestBuffersServeEveryInput(t *testing.T) {
	line := []byte(`{"type":"effect","operationId":"op-1","effectRef":"r1"}` + "\n")
	p := New(Options{Workers: 2, Shards: 2}, func() *audit.Auditor { return audit.New(nil) })
	allocated := func(from, to int) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := from; i < to; i++ {
			if err := p.Read(Input{Name: fmt.Sprint("in", i), R: bytes.NewReader(line)}, i); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	first := allocated(0, 1)
	next := allocated(1, 50)
	if next >= first {
		t.Errorf("49 more inputs allocated %d bytes, the first %d: want the buffers made once", next, first)
	}
	if got := p.Report().Summary.Lines; got != 50 {
		t.Errorf("%d lines; want 50", got)
	}
}
