package synth

import (
	"bytes"
	"errors"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// generated is one run of Generate kept in memory with its parsed lines.
type generated struct {
	cfg     Config
	stats   Stats
	ledger  []byte
	truth   []byte
	lines   [][]byte // newline included
	records []record // one per line, copies included
}

func generate(t testing.TB, cfg Config) *generated {
	return generateWith(t, cfg, checkLine)
}

// generateWith runs Generate and parses every line with parse.
func generateWith(t testing.TB, cfg Config, parse func([]byte) (record, error)) *generated {
	t.Helper()
	var ledger, truth bytes.Buffer
	ledger.Grow(cfg.Ops * 900)
	st, err := Generate(cfg, &ledger, &truth)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", cfg, err)
	}
	g := &generated{cfg: cfg, stats: st, ledger: ledger.Bytes(), truth: truth.Bytes()}
	for rest := g.ledger; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			t.Fatalf("line %d has no final newline", len(g.lines)+1)
		}
		line := rest[:i+1]
		rest = rest[i+1:]
		rec, err := parse(line)
		if err != nil {
			t.Fatalf("line %d: %v\n%s", len(g.lines)+1, err, line)
		}
		g.lines = append(g.lines, line)
		g.records = append(g.records, rec)
	}
	return g
}

// cache keeps the large runs that several tests inspect.
var cache = map[Config]*generated{}

func cached(t *testing.T, cfg Config) *generated {
	t.Helper()
	if g, ok := cache[cfg]; ok {
		return g
	}
	g := generate(t, cfg)
	cache[cfg] = g
	return g
}

var standard = Config{Ops: 20000, Seed: 42}

func TestGenerateDeterministic(t *testing.T) {
	run := func(cfg Config) (string, string) {
		var l, tr bytes.Buffer
		if _, err := Generate(cfg, &l, &tr); err != nil {
			t.Fatal(err)
		}
		return l.String(), tr.String()
	}
	tests := []struct {
		name string
		a, b Config
		same bool
	}{
		{"same seed", Config{Ops: 5000, Seed: 7}, Config{Ops: 5000, Seed: 7}, true},
		{"default window is 4096", Config{Ops: 5000, Seed: 7}, Config{Ops: 5000, Seed: 7, Window: DefaultWindow}, true},
		{"same seed, small window", Config{Ops: 5000, Seed: 7, Window: 3}, Config{Ops: 5000, Seed: 7, Window: 3}, true},
		{"other seed", Config{Ops: 5000, Seed: 7}, Config{Ops: 5000, Seed: 8}, false},
		{"negative seed", Config{Ops: 5000, Seed: -7}, Config{Ops: 5000, Seed: 7}, false},
		{"other window", Config{Ops: 5000, Seed: 7}, Config{Ops: 5000, Seed: 7, Window: 16}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			la, ta := run(tt.a)
			lb, tb := run(tt.b)
			if tt.same {
				if la != lb {
					t.Error("ledgers differ")
				}
				if ta != tb {
					t.Error("truths differ")
				}
				return
			}
			if la == lb {
				t.Error("ledgers are identical")
			}
		})
	}
}

func TestGenerateStats(t *testing.T) {
	g := cached(t, standard)
	copies := 0
	seen := make(map[string]bool, len(g.lines))
	for _, l := range g.lines {
		if seen[string(l)] {
			copies++
		}
		seen[string(l)] = true
	}
	labels := map[string]int{}
	for _, l := range g.truthLabels(t) {
		labels[l]++
	}
	for _, l := range labelNames {
		labels[l] += 0 // all five keys, as Stats has them
	}
	want := Stats{
		Records:    len(g.lines) - copies,
		Lines:      len(g.lines),
		Operations: standard.Ops,
		Bytes:      int64(len(g.ledger)),
		Labels:     labels,
	}
	if diff := cmp.Diff(want, g.stats); diff != "" {
		t.Errorf("Stats mismatch (-want +got):\n%s", diff)
	}
}

func (g *generated) truthLabels(t *testing.T) map[string]string {
	t.Helper()
	labels, _, err := Truth(bytes.NewReader(g.truth))
	if err != nil {
		t.Fatal(err)
	}
	return labels
}

func TestGenerateSize(t *testing.T) {
	g := cached(t, standard)
	perOp := float64(g.stats.Records) / float64(g.stats.Operations)
	perRecord := float64(g.stats.Bytes) / float64(g.stats.Lines)
	t.Logf("%.2f records per operation, %.1f bytes per line", perOp, perRecord)
	if perOp < 2.7 || perOp > 3.3 {
		t.Errorf("records per operation = %.2f, want about 3", perOp)
	}
	if perRecord < 240 || perRecord > 300 {
		t.Errorf("bytes per line = %.1f, want 240–300", perRecord)
	}
}

func TestGenerateLabelMix(t *testing.T) {
	g := cached(t, standard)
	want := map[string]float64{
		LabelHealthy:     0.70,
		LabelDuplicate:   0.08,
		LabelKeyConflict: 0.05,
		LabelUncertain:   0.12,
		LabelAbsent:      0.05,
	}
	for _, l := range labelNames {
		got := float64(g.stats.Labels[l]) / float64(g.stats.Operations)
		t.Logf("%-12s %5.2f%%", l, 100*got)
		// About five standard errors at 20000 operations.
		tol := 0.012
		if l == LabelHealthy {
			tol = 0.02
		}
		if got < want[l]-tol || got > want[l]+tol {
			t.Errorf("%s share = %.4f, want %.2f ± %.3f", l, got, want[l], tol)
		}
	}
}

func TestGenerateDuplicateLines(t *testing.T) {
	g := cached(t, standard)
	last := map[string]int{}
	copies := 0
	for i, l := range g.lines {
		if j, ok := last[string(l)]; ok {
			copies++
			// Copies that fall due together go out one after another, so a
			// few may land a little past dupMaxDelay.
			if i-j > dupMaxDelay+16 {
				t.Errorf("line %d copies line %d, %d lines back: not shortly after", i+1, j+1, i-j)
			}
		}
		last[string(l)] = i
	}
	rate := float64(copies) / float64(len(g.lines))
	t.Logf("%d exact copies, %.3f%% of lines", copies, 100*rate)
	if rate < 0.004 || rate > 0.010 {
		t.Errorf("copy rate = %.4f, want 0.004–0.010", rate)
	}
}

// TestTruthFollowsSpec labels every generated ledger with the independent
// oracle and demands the generator's truth, line for line.
func TestTruthFollowsSpec(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
	}{
		{"standard", standard},
		{"seed 1", Config{Ops: 20000, Seed: 1}},
		{"seed -3 window 64", Config{Ops: 20000, Seed: -3, Window: 64}},
		{"window 1", Config{Ops: 3000, Seed: 5, Window: 1}},
		{"window larger than ops", Config{Ops: 500, Seed: 9, Window: 100000}},
		{"one op", Config{Ops: 1, Seed: 3}},
		{"two ops", Config{Ops: 2, Seed: 3}},
		{"no ops", Config{Ops: 0, Seed: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := cached(t, tt.cfg)
			facts := gatherFacts(g.records)
			labels, order, err := Truth(bytes.NewReader(g.truth))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(facts.labels(), labels); diff != "" {
				t.Errorf("truth differs from SPEC's rules (-spec +truth):\n%s", diff)
			}
			if diff := cmp.Diff(facts.order, order); diff != "" {
				t.Errorf("truth is not in order of first record (-ledger +truth):\n%s", diff)
			}
			if len(order) != tt.cfg.Ops {
				t.Errorf("truth lists %d operations, want %d", len(order), tt.cfg.Ops)
			}
		})
	}
}

func TestTruthFollowsSpecLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large run")
	}
	// The shape checker is thorough but slow; the standard runs already hold
	// every line to it, so here a plain decode is enough.
	g := generateWith(t, Config{Ops: 100000, Seed: 2026}, decodeLine)
	facts := gatherFacts(g.records)
	labels, _, err := Truth(bytes.NewReader(g.truth))
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for id, want := range facts.labels() {
		if labels[id] != want {
			if bad++; bad <= 10 {
				t.Errorf("%s: truth %q, SPEC gives %q", id, labels[id], want)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d operations mislabelled", bad)
	}
}

// TestGenerateVariety checks that the ledger holds the cases that make a
// careless audit go wrong, each still labelled as SPEC says.
func TestGenerateVariety(t *testing.T) {
	g := cached(t, standard)
	facts := gatherFacts(g.records)
	truth := g.truthLabels(t)

	count := map[string]int{}
	for id, e := range facts.ops {
		label := truth[id]
		var latestAttempt, latestAbsence int64 = -1 << 62, -1 << 62
		for _, at := range e.attemptTimes {
			latestAttempt = max(latestAttempt, at.UnixNano())
		}
		for _, at := range e.absences {
			latestAbsence = max(latestAbsence, at.UnixNano())
		}
		switch {
		case label == LabelKeyConflict && e.ownConflict():
			count["key-conflict: two hashes in one operation"]++
		case label == LabelKeyConflict:
			count["key-conflict: key shared with another operation"]++
		}
		if label == LabelUncertain && len(e.absences) > 0 && !e.attemptUntimed && latestAbsence < latestAttempt {
			count["uncertain: absence before the last attempt"]++
		}
		if label == LabelUncertain && len(e.absences) > 0 && e.attemptUntimed {
			count["uncertain: absence, one attempt untimed"]++
		}
		if label == LabelUncertain && len(e.absences) == 0 && e.untimedAbsences > 0 {
			count["uncertain: absence without observedAt"]++
		}
		if label == LabelAbsent && e.attempts() == 0 {
			count["absent: no attempt records"]++
		}
		if label == LabelAbsent && latestAbsence == latestAttempt {
			count["absent: absence at the same instant as the last attempt"]++
		}
		if label == LabelHealthy && e.attempts() == 3 {
			count["healthy: three attempts"]++
		}
		if label == LabelHealthy && len(e.absences) > 0 {
			count["healthy: contradicting early absence"]++
		}
		if label == LabelDuplicate && len(e.effectRefs) == 3 {
			count["duplicate: three effects"]++
		}
	}
	receipts := map[[2]string]int{}
	for _, r := range g.records {
		switch {
		case r.Type == "attempt" && r.AttemptID == "":
			count["attempt without attemptId"]++
		case r.Type == "effect" && r.IdempotencyKey != "" && r.PayloadHash != "":
			count["effect carrying key and payload hash"]++
		}
		if r.Type == "effect" && r.EffectRef != "" {
			receipts[[2]string{r.OperationID, r.EffectRef}]++
		}
	}
	for k, n := range receipts {
		if n >= 2 && truth[k[0]] == LabelHealthy {
			count["healthy: two receipts of one effectRef"]++
		}
	}
	seen := map[string]bool{}
	for i, l := range g.lines {
		if seen[string(l)] && g.records[i].Type == "attempt" && g.records[i].AttemptID == "" {
			count["copied attempt without attemptId"]++
		}
		seen[string(l)] = true
	}
	minimum := map[string]int{
		"key-conflict: two hashes in one operation":               400,
		"key-conflict: key shared with another operation":         250,
		"uncertain: absence before the last attempt":              300,
		"uncertain: absence, one attempt untimed":                 300,
		"uncertain: absence without observedAt":                   50,
		"absent: no attempt records":                              20,
		"absent: absence at the same instant as the last attempt": 80,
		"healthy: three attempts":                                 1000,
		"healthy: two receipts of one effectRef":                  1500,
		"healthy: contradicting early absence":                    100,
		"duplicate: three effects":                                50,
		"attempt without attemptId":                               500,
		"effect carrying key and payload hash":                    1000,
	}
	for what, least := range minimum {
		if count[what] < least {
			t.Errorf("%s: %d, want at least %d", what, count[what], least)
		}
	}
	t.Logf("variety: %v", count)
}

func TestGenerateUniqueIdentifiers(t *testing.T) {
	g := cached(t, standard)
	keyOwners := map[string]map[string]bool{}
	refOwners := map[string]string{}
	attemptOwners := map[string]string{}
	for _, r := range g.records {
		if r.IdempotencyKey != "" {
			if keyOwners[r.IdempotencyKey] == nil {
				keyOwners[r.IdempotencyKey] = map[string]bool{}
			}
			keyOwners[r.IdempotencyKey][r.OperationID] = true
		}
		if r.EffectRef != "" {
			if o, ok := refOwners[r.EffectRef]; ok && o != r.OperationID {
				t.Errorf("effectRef %s names effects of %s and %s", r.EffectRef, o, r.OperationID)
			}
			refOwners[r.EffectRef] = r.OperationID
		}
		if r.Type == "attempt" && r.AttemptID != "" {
			if o, ok := attemptOwners[r.AttemptID]; ok && o != r.OperationID {
				t.Errorf("attemptId %s used by %s and %s", r.AttemptID, o, r.OperationID)
			}
			attemptOwners[r.AttemptID] = r.OperationID
		}
	}
	// A key reaches a second operation only where the truth says both are
	// key-conflict; never by accident.
	truth := g.truthLabels(t)
	for key, ops := range keyOwners {
		if len(ops) == 1 {
			continue
		}
		if len(ops) > 2 {
			t.Errorf("key %s used by %d operations", key, len(ops))
		}
		for op := range ops {
			if truth[op] != LabelKeyConflict {
				t.Errorf("key %s is shared, but %s is %s", key, op, truth[op])
			}
		}
	}
}

func TestGenerateInterleaving(t *testing.T) {
	t.Run("window 4096", func(t *testing.T) {
		g := cached(t, standard)
		spans := opSpans(g)
		sort.Ints(spans)
		median := spans[len(spans)/2]
		t.Logf("median first-to-last distance: %d lines over %d operations", median, len(spans))
		if median <= 100 {
			t.Errorf("median distance between first and last record = %d, want > 100", median)
		}
	})
	t.Run("window 1", func(t *testing.T) {
		// One open operation at a time: its records are contiguous, apart
		// from re-exported copies.
		g := cached(t, Config{Ops: 3000, Seed: 5, Window: 1})
		seen := map[string]bool{}
		done := map[string]bool{}
		current := ""
		for i, l := range g.lines {
			if seen[string(l)] {
				continue
			}
			seen[string(l)] = true
			op := g.records[i].OperationID
			if op == current {
				continue
			}
			if done[op] {
				t.Fatalf("line %d: %s resumes after other operations", i+1, op)
			}
			done[current] = true
			current = op
		}
	})
	t.Run("records of one operation stay in time order", func(t *testing.T) {
		g := cached(t, standard)
		last := map[string]int64{}
		seen := map[string]bool{}
		for i, r := range g.records {
			if seen[string(g.lines[i])] || !r.HasObservedAt {
				seen[string(g.lines[i])] = true
				continue
			}
			seen[string(g.lines[i])] = true
			at := r.ObservedAt.UnixNano()
			if prev, ok := last[r.OperationID]; ok && at < prev {
				t.Fatalf("line %d: %s goes back in time", i+1, r.OperationID)
			}
			last[r.OperationID] = at
		}
	})
}

// opSpans returns, per operation with two or more records, how many lines lie
// between its first and last record.
func opSpans(g *generated) []int {
	first := map[string]int{}
	lastAt := map[string]int{}
	for i, r := range g.records {
		if _, ok := first[r.OperationID]; !ok {
			first[r.OperationID] = i
		}
		lastAt[r.OperationID] = i
	}
	var spans []int
	for op, f := range first {
		if d := lastAt[op] - f; d > 0 {
			spans = append(spans, d)
		}
	}
	return spans
}

func TestGenerateConfigErrors(t *testing.T) {
	for _, cfg := range []Config{{Ops: -1}, {Ops: 10, Window: -1}} {
		t.Run("", func(t *testing.T) {
			_, err := Generate(cfg, io.Discard, nil)
			if !errors.Is(err, ErrConfig) {
				t.Errorf("Generate(%+v) = %v, want ErrConfig", cfg, err)
			}
		})
	}
}

func TestGenerateWithoutTruth(t *testing.T) {
	var with, without bytes.Buffer
	if _, err := Generate(Config{Ops: 1000, Seed: 4}, &with, io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := Generate(Config{Ops: 1000, Seed: 4}, &without, nil); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(with.Bytes(), without.Bytes()) {
		t.Error("the ledger depends on whether a truth is written")
	}
}

// failAfter accepts n bytes, then fails every write.
type failAfter struct{ n int }

var errDiskFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

func TestGenerateWriteErrors(t *testing.T) {
	tests := []struct {
		name          string
		ledger, truth io.Writer
	}{
		{"ledger fails at once", &failAfter{}, io.Discard},
		{"ledger fails midway", &failAfter{n: 3 << 20}, io.Discard},
		{"ledger fails at the final flush", &failAfter{n: 1<<20 + 10}, io.Discard},
		{"truth fails", io.Discard, &failAfter{n: 1000}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Generate(Config{Ops: 5000, Seed: 1}, tt.ledger, tt.truth)
			if !errors.Is(err, errDiskFull) {
				t.Errorf("err = %v, want one wrapping %v", err, errDiskFull)
			}
		})
	}
}

func TestTruth(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		wantOrder []string
		wantErr   string
	}{
		{"empty", "", nil, ""},
		{"two lines", `{"operationId":"op-b","label":"healthy"}` + "\n" + `{"operationId":"op-a","label":"absent"}` + "\n", []string{"op-b", "op-a"}, ""},
		{"crlf, no final newline", `{"operationId":"op-a","label":"uncertain"}` + "\r\n" + `{"operationId":"op-b","label":"key-conflict"}`, []string{"op-a", "op-b"}, ""},
		{"blank line", "\n" + `{"operationId":"op-a","label":"duplicate"}` + "\n", []string{"op-a"}, ""},
		{"unknown label", `{"operationId":"op-a","label":"Healthy"}` + "\n", nil, `line 1: unknown label "Healthy"`},
		{"listed twice", `{"operationId":"op-a","label":"healthy"}` + "\n" + `{"operationId":"op-a","label":"healthy"}` + "\n", nil, `line 2: operation "op-a" listed twice`},
		{"missing label", `{"operationId":"op-a"}` + "\n", nil, "line 1: missing label"},
		{"empty operationId", `{"operationId":"","label":"healthy"}` + "\n", nil, "line 1: missing operationId"},
		{"unknown field", `{"operationId":"op-a","label":"healthy","x":1}` + "\n", nil, "line 1:"},
		{"not JSON", "op-a healthy\n", nil, "line 1:"},
		{"two values", `{"operationId":"op-a","label":"healthy"} {}` + "\n", nil, "line 1: more than one value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			labels, order, err := Truth(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !errors.Is(err, ErrTruth) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want ErrTruth containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantOrder, order); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
			if len(labels) != len(order) {
				t.Errorf("%d labels for %d operations", len(labels), len(order))
			}
		})
	}
}

func TestTruthRoundTrip(t *testing.T) {
	g := cached(t, standard)
	labels, order, err := Truth(bytes.NewReader(g.truth))
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != standard.Ops || len(labels) != standard.Ops {
		t.Fatalf("read %d operations (%d labels), want %d", len(order), len(labels), standard.Ops)
	}
	counts := map[string]int{}
	for _, op := range order {
		counts[labels[op]]++
	}
	for _, l := range labelNames {
		counts[l] += 0
	}
	if diff := cmp.Diff(g.stats.Labels, counts); diff != "" {
		t.Errorf("labels read back differ from Stats (-stats +truth):\n%s", diff)
	}
}

func TestAppendTime(t *testing.T) {
	tests := []struct {
		ms   int64
		want string
	}{
		{0, "1970-01-01T00:00:00.000Z"},
		{baseMs, "2026-03-02T08:00:00.000Z"},
		{951782400000 + 86399999, "2000-02-29T23:59:59.999Z"},
		{4107542400000 + 1, "2100-03-01T00:00:00.001Z"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := string(appendTime(nil, tt.ms)); got != tt.want {
				t.Errorf("appendTime(%d) = %s, want %s", tt.ms, got, tt.want)
			}
		})
	}
	t.Run("agrees with package time", func(t *testing.T) {
		for ms := int64(0); ms < 5_000_000_000_000; ms += 7_777_777_777 {
			want := time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
			if got := string(appendTime(nil, ms)); got != want {
				t.Fatalf("appendTime(%d) = %s, want %s", ms, got, want)
			}
		}
	})
}

func BenchmarkGenerate(b *testing.B) {
	cfg := Config{Ops: 100000, Seed: 1}
	st, err := Generate(cfg, io.Discard, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Bytes)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Generate(cfg, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
