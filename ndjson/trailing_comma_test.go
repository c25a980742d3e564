package ndjson

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTrailingCommaInArrays checks that a comma before an array's closing
// bracket is named as a trailing comma, at the bracket, as it is in an
// object, however deep the array stands.
func TestTrailingCommaInArrays(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{`{"a":[1,]}`, "column 9: invalid JSON: trailing comma"},
		{`{"a":[1, ]}`, "column 10: invalid JSON: trailing comma"},
		{`{"a":["x",{},]}`, "column 14: invalid JSON: trailing comma"},
		{`{"a":[[1,],2]}`, "column 10: invalid JSON: trailing comma"},
		{`{"a":{"b":[true,]}}`, "column 17: invalid JSON: trailing comma"},
		{`{"type":"attempt","operationId":"o","tags":[1,]}`, "column 47: invalid JSON: trailing comma"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			var p Parser
			_, err := p.Parse([]byte(tt.line))
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want an error", tt.line)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Errorf("Parse(%q) error %v is not ErrSyntax", tt.line, err)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("Parse(%q) error (-want +got):\n%s", tt.line, diff)
			}
		})
	}
}
