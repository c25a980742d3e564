package audit

import (
	"fmt"
	"strings"
	"testing"
)

func TestQuoted(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"op-1", "op-1"},
		{strings.Repeat("a", maxQuoted), strings.Repeat("a", maxQuoted)},
		{strings.Repeat("a", maxQuoted+1), strings.Repeat("a", maxQuoted) + "…"},
		{strings.Repeat("é", maxQuoted), strings.Repeat("é", maxQuoted)},
		{strings.Repeat("é", maxQuoted) + "x", strings.Repeat("é", maxQuoted) + "…"},
	}
	for _, tt := range tests {
		var tx text
		tx.quoted(tt.in)
		if got := string(tx.b); got != tt.want {
			t.Errorf("quoted(%d bytes) = %d bytes %.40q…, want %d bytes", len(tt.in), len(got), got, len(tt.want))
		}
	}
}

// TestMessagesQuoteOthersCut checks that the messages that name strings of
// other operations (shared-effect names their ids, a key-conflict reason
// the hashes they bound the key to) cut long ones: whole, each long string
// would be repeated on every operation naming it.
func TestMessagesQuoteOthersCut(t *testing.T) {
	long := func(prefix string, i int) string {
		return fmt.Sprintf("%s%d-%s", prefix, i, strings.Repeat("x", 10_000))
	}
	var recs []rec
	for i := range 3 {
		recs = append(recs,
			rec{typ: E, op: long("a-long-op-", i), ref: "shared"},
			rec{typ: A, op: long("a-long-op-", i), attempt: "a1", key: "k", hash: long("h-", i), result: "success"})
	}
	for i := range 20 {
		recs = append(recs,
			rec{typ: E, op: fmt.Sprintf("short-%02d", i), ref: "shared"},
			rec{typ: A, op: fmt.Sprintf("short-%02d", i), attempt: "a1", key: "k", hash: "sha256:" + strings.Repeat("0", 64), result: "success"})
	}
	rep := run(build(t, recs))
	cut := strings.Repeat("x", maxQuoted-len("a-long-op-0-")) + "…"
	seen := 0
	for _, op := range rep.OperationList() {
		if !strings.HasPrefix(op.OperationID, "short-") {
			continue
		}
		seen++
		if !strings.Contains(op.Reason, "h-0-") || !strings.Contains(op.Reason, strings.Repeat("x", maxQuoted-len("h-0-"))+"…") {
			t.Errorf("%s: reason does not name the hashes cut: %.300q", op.OperationID, op.Reason)
		}
		if len(op.Reason) > 1000 {
			t.Errorf("%s: reason is %d bytes", op.OperationID, len(op.Reason))
		}
		found := false
		for _, f := range op.Findings {
			if f.Code != "shared-effect" {
				continue
			}
			found = true
			if !strings.Contains(f.Message, "a-long-op-0-"+cut) || len(f.Message) > 1000 {
				t.Errorf("%s: shared-effect message does not name the other operations cut: %d bytes, %.300q", op.OperationID, len(f.Message), f.Message)
			}
		}
		if !found {
			t.Errorf("%s: no shared-effect finding in %v", op.OperationID, op.Findings)
		}
	}
	if seen != 20 {
		t.Fatalf("%d short operations in the report, want 20", seen)
	}
}

// TestErrorMessagesQuoteValuesCut checks that the messages of invalid
// records quote at most maxQuotedValue runes of the value at fault: the
// messages are kept, shared and printed, and a value may be megabytes.
func TestErrorMessagesQuoteValuesCut(t *testing.T) {
	long := "é" + strings.Repeat("9", 100_000)
	cut := `"é` + strings.Repeat("9", maxQuotedValue-1) + `"…`
	tests := []struct{ line, want string }{
		{`{"type":"attempt","operationId":"op-1","observedAt":"` + long + `"}`,
			`field "observedAt": ` + cut + `: want RFC 3339 date-time`},
		{`{"type":"` + long + `","operationId":"op-1"}`,
			`field "type": ` + cut + `; want "attempt" or "effect"`},
		{`{"type":"effect","operationId":"op-1","effectRef":"r","result":"` + long + `"}`,
			`field "result": ` + cut + ` on an effect; want "present" or "absent"`},
		{`{"type":"Attempt","operationId":"op-1"}`, `field "type": "Attempt"; want "attempt" or "effect"`},
	}
	for _, tt := range tests {
		_, err := decodeLine(t, tt.line)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || len(err.Error()) > 300 {
			t.Errorf("Decode(%.60s…) error = %.300q, want it to start %q", tt.line, err, tt.want)
		}
	}
}
