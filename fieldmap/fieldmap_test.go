package fieldmap

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/ndjson"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name  string
		specs []string
		want  string // Map.String(), when no error
		err   string // the error text, when one is expected
	}{
		{name: "none", specs: nil, want: ""},
		{name: "one", specs: []string{"operationId=op_id"}, want: "operationId=op_id"},
		{name: "Fields order", specs: []string{"effectRef=provider.object_id", "type=kind"}, want: "type=kind,effectRef=provider.object_id"},
		{name: "escaped dot", specs: []string{`payloadHash=meta.hash\.v2`}, want: `payloadHash=meta.hash\.v2`},
		{name: "path with =", specs: []string{"scope=a=b"}, want: "scope=a=b"},
		{name: "missing =", specs: []string{"operationId"}, err: `--map "operationId": want FIELD=PATH`},
		{
			name:  "unknown field",
			specs: []string{"operationID=op_id"},
			err:   `--map "operationID=op_id": unknown ledger field "operationID"; valid fields: type, operationId, attemptId, idempotencyKey, scope, payloadHash, result, effectRef, observedAt, attempt`,
		},
		{name: "empty field", specs: []string{"=op_id"}, err: `--map "=op_id": unknown ledger field ""; valid fields: type, operationId, attemptId, idempotencyKey, scope, payloadHash, result, effectRef, observedAt, attempt`},
		{name: "empty path", specs: []string{"operationId="}, err: `--map "operationId=": empty path`},
		{name: "twice", specs: []string{"scope=a", "scope=a"}, err: `--map "scope=a": scope is mapped twice (also by "scope=a")`},
		{name: "empty segment", specs: []string{"scope=a..b"}, err: `--map "scope=a..b": path "a..b" has an empty segment`},
		{name: "leading dot", specs: []string{"scope=.a"}, err: `--map "scope=.a": path ".a" has an empty segment`},
		{name: "trailing dot", specs: []string{"scope=a."}, err: `--map "scope=a.": path "a." has an empty segment`},
		{name: "lone backslash", specs: []string{`scope=a\`}, err: `--map "scope=a\\": path "a\\" ends with a lone backslash; write \\ for a backslash`},
		{name: "unknown escape", specs: []string{`scope=a\n`}, err: `--map "scope=a\\n": path "a\\n": unknown escape \n; only \. and \\ are escapes`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(tt.specs)
			if tt.err != "" {
				if err == nil {
					t.Fatalf("Parse(%q) = %v, want error %q", tt.specs, m, tt.err)
				}
				if diff := cmp.Diff(tt.err, err.Error()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				var fe *Error
				if !errors.As(err, &fe) {
					t.Errorf("error %T is not an *Error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.specs, err)
			}
			if diff := cmp.Diff(tt.want, m.String()); diff != "" {
				t.Errorf("map (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPath(t *testing.T) {
	tests := []struct {
		spec string
		want []string
	}{
		{"operationId=op_id", []string{"op_id"}},
		{"operationId=gen_ai.conversation.id", []string{"gen_ai", "conversation", "id"}},
		{`operationId=a\.b.c`, []string{"a.b", "c"}},
		{`operationId=a\\.b`, []string{`a\`, "b"}},
		{`operationId=a\\\.b`, []string{`a\.b`}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			m, err := Parse([]string{tt.spec})
			if err != nil {
				t.Fatal(err)
			}
			got, ok := m.Path("operationId")
			if !ok {
				t.Fatal("operationId not mapped")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Path (-want +got):\n%s", diff)
			}
			if _, ok := m.Path("scope"); ok {
				t.Error("scope is mapped")
			}
			if _, ok := m.Path("nonsense"); ok {
				t.Error("nonsense is mapped")
			}
		})
	}
	var nilMap *Map
	if _, ok := nilMap.Path("type"); ok || nilMap.Len() != 0 || nilMap.String() != "" {
		t.Error("a nil Map maps something")
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name string
		file string
		want string // Map.String(), when no error
		err  string
	}{
		{name: "flow", file: "map: {operationId: op_id, effectRef: provider.object_id}\n", want: "operationId=op_id,effectRef=provider.object_id"},
		{name: "block", file: "# ledger of the billing worker\nmap:\n  operationId: op_id\n  effectRef: provider.object_id\n", want: "operationId=op_id,effectRef=provider.object_id"},
		{name: "escape plain", file: "map:\n  payloadHash: meta.hash\\.v2\n", want: `payloadHash=meta.hash\.v2`},
		{name: "escape single quoted", file: "map:\n  payloadHash: 'meta.hash\\.v2'\n", want: `payloadHash=meta.hash\.v2`},
		{name: "empty file", file: "", want: ""},
		{name: "comment only", file: "# nothing yet\n", want: ""},
		{name: "empty map", file: "map:\n", want: ""},
		{name: "bom", file: "\ufeffmap: {scope: region}\n", want: "scope=region"},
		{name: "unknown top-level key", file: "map:\n  scope: s\nmapping:\n  type: t\n", err: `m.yaml:3: unknown key "mapping"; valid keys: map`},
		{name: "unknown field", file: "map:\n  scope: s\n  operationID: op_id\n", err: `m.yaml:3: map: unknown ledger field "operationID"; valid fields: type, operationId, attemptId, idempotencyKey, scope, payloadHash, result, effectRef, observedAt, attempt`},
		{name: "duplicate field", file: "map:\n  scope: s\n  scope: t\n", err: `m.yaml:3: mapping key "scope" already defined at [2:3]`},
		{name: "empty path", file: "map:\n  scope:\n", err: `m.yaml:2: map.scope: empty path`},
		{name: "empty string path", file: "map:\n  scope: ''\n", err: `m.yaml:2: map.scope: empty path`},
		{name: "number path", file: "map:\n  scope: 12\n", err: `m.yaml:2: map.scope: want a path (a string), got a number; quote it`},
		{name: "list path", file: "map:\n  scope: [a]\n", err: `m.yaml:2: map.scope: want a path (a string), got a list`},
		{name: "bad path", file: "map:\n  scope: a..b\n", err: `m.yaml:2: map.scope: path "a..b" has an empty segment`},
		{name: "double quoted escape", file: "map:\n  scope: \"a\\.b\"\n", err: `m.yaml:2: found unknown escape character '.'`},
		{name: "not a mapping", file: "- map\n", err: `m.yaml:1: want a mapping with the key map, got a list`},
		{name: "map not a mapping", file: "map: op_id\n", err: `m.yaml:1: map: want a mapping of ledger field to path, got a string`},
		{name: "alias", file: "map:\n  scope: &s a\n  type: *s\n", err: `m.yaml:2: map.scope: anchors (&) are not supported in a mapping file`},
		{name: "two documents", file: "map: {}\n---\nmap: {}\n", err: `m.yaml:3: a second YAML document; a mapping file holds one`},
		{name: "deep", file: strings.Repeat("[", 100) + "\n", err: `m.yaml:1: nested more than 16 levels deep`},
		{name: "number key", file: "12: x\n", err: `m.yaml:1: want a name as key, got a number`},
		{name: "merge key", file: "map:\n  <<: {scope: a}\n", err: `m.yaml:2: map: merge keys (<<) are not supported in a mapping file`},
		{name: "tag", file: "map:\n  scope: !!str a\n", err: `m.yaml:2: map.scope: tags (!) are not supported in a mapping file`},
		// Worded as a policy file words them (yamldoc.Unsupported).
		{name: "block scalar", file: "map:\n  scope: |\n    a\n", err: `m.yaml:2: map.scope: block scalars (| and >) are not supported in a mapping file`},
		{name: "explicit key", file: "map:\n  ? scope\n  : a\n", err: `m.yaml:2: map: explicit keys (?) are not supported in a mapping file`},
		{name: "control characters in a message", file: "map:\n  \"sc\\u001bope\": a\n", err: `m.yaml:2: map: unknown ledger field "sc\x1bope"; valid fields: type, operationId, attemptId, idempotencyKey, scope, payloadHash, result, effectRef, observedAt, attempt`},
		{name: "syntax", file: "map: {scope: \n", err: `m.yaml:1: could not find map value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Load("m.yaml", []byte(tt.file))
			if tt.err != "" {
				if err == nil {
					t.Fatalf("Load = %v, want error %q", m, tt.err)
				}
				if diff := cmp.Diff(tt.err, err.Error()); diff != "" {
					t.Errorf("error (-want +got):\n%s", diff)
				}
				var fe *Error
				if !errors.As(err, &fe) || fe.File != "m.yaml" || fe.Line < 1 {
					t.Errorf("error %#v does not name the file and line", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if diff := cmp.Diff(tt.want, m.String()); diff != "" {
				t.Errorf("map (-want +got):\n%s", diff)
			}
		})
	}
}

func TestMergeFlagsOverFile(t *testing.T) {
	file, err := Load("m.yaml", []byte("map:\n  operationId: op_id\n  effectRef: provider.object_id\n  scope: region\n"))
	if err != nil {
		t.Fatal(err)
	}
	flags, err := Parse([]string{"operationId=request.op", "result=outcome"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		got  *Map
		want string
	}{
		{"flags win", file.Merge(flags), "operationId=request.op,scope=region,result=outcome,effectRef=provider.object_id"},
		{"file alone", file.Merge(nil), "operationId=op_id,scope=region,effectRef=provider.object_id"},
		{"flags alone", (*Map)(nil).Merge(flags), "operationId=request.op,result=outcome"},
		{"nothing", (*Map)(nil).Merge(nil), ""},
		{"clone", flags.Clone(), "operationId=request.op,result=outcome"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.got.String()); diff != "" {
				t.Errorf("merged (-want +got):\n%s", diff)
			}
		})
	}
	// Merge builds a new Map: its inputs are unchanged.
	if diff := cmp.Diff("operationId=op_id,scope=region,effectRef=provider.object_id", file.String()); diff != "" {
		t.Errorf("file map changed (-want +got):\n%s", diff)
	}
}

// member is a comparable view of an ndjson.Member.
type member struct {
	Name, Value string
	Kind        ndjson.Kind
	Escaped     bool
}

func view(ms []ndjson.Member) []member {
	out := []member{}
	for _, m := range ms {
		out = append(out, member{string(m.Name), string(m.Value), m.Kind, m.Escaped})
	}
	return out
}

func TestMembers(t *testing.T) {
	tests := []struct {
		name  string
		specs []string
		line  string
		want  []member
	}{
		{
			name:  "no map passes members through",
			specs: nil,
			line:  `{"type":"effect","x":1}`,
			want:  []member{{"type", `"effect"`, ndjson.String, false}, {"x", "1", ndjson.Number, false}},
		},
		{
			name:  "top-level rename",
			specs: []string{"operationId=op_id"},
			line:  `{"type":"attempt","op_id":"op-1","extra":true}`,
			want:  []member{{"type", `"attempt"`, ndjson.String, false}, {"operationId", `"op-1"`, ndjson.String, false}},
		},
		{
			name:  "nested path",
			specs: []string{"effectRef=provider.object_id", "scope=provider.region"},
			line:  `{"type":"effect","provider":{"region":"eu-west-1","object_id":"ticket-908"}}`,
			want: []member{
				{"type", `"effect"`, ndjson.String, false},
				{"scope", `"eu-west-1"`, ndjson.String, false},
				{"effectRef", `"ticket-908"`, ndjson.String, false},
			},
		},
		{
			name:  "deeply nested, any kind",
			specs: []string{"attempt=a.b.c.n"},
			line:  `{"a":{"b":{"c":{"n":3}}}}`,
			want:  []member{{"attempt", "3", ndjson.Number, false}},
		},
		{
			name:  "escaped member name in the nested object",
			specs: []string{"effectRef=provider.object_id"},
			line:  `{"provider":{"object\u005fid":"ticket-\u003908"}}`,
			want:  []member{{"effectRef", `"ticket-\u003908"`, ndjson.String, true}},
		},
		{
			name:  "escaped dot in the path",
			specs: []string{`payloadHash=meta.hash\.v2`},
			line:  `{"meta":{"hash":{"v2":"wrong"},"hash.v2":"sha256:ab"}}`,
			want:  []member{{"payloadHash", `"sha256:ab"`, ndjson.String, false}},
		},
		{
			name:  "escaped dot in a top-level name",
			specs: []string{`operationId=op\.id`},
			line:  `{"op.id":"op-1","op":{"id":"wrong"}}`,
			want:  []member{{"operationId", `"op-1"`, ndjson.String, false}},
		},
		{
			name:  "missing path is absent",
			specs: []string{"effectRef=provider.object_id"},
			line:  `{"type":"effect","provider":{"region":"eu"}}`,
			want:  []member{{"type", `"effect"`, ndjson.String, false}},
		},
		{
			name:  "step into a non-object is absent",
			specs: []string{"effectRef=provider.object_id", "scope=list.x"},
			line:  `{"provider":"stripe","list":[{"x":1}]}`,
			want:  []member{},
		},
		{
			name:  "step into null is absent",
			specs: []string{"effectRef=provider.object_id"},
			line:  `{"provider":null}`,
			want:  []member{},
		},
		{
			name:  "mapped field ignores its own top-level name",
			specs: []string{"operationId=op_id"},
			line:  `{"operationId":"ignored","op_id":"op-1"}`,
			want:  []member{{"operationId", `"op-1"`, ndjson.String, false}},
		},
		{
			name:  "mapped field ignores its own top-level name even when the path is missing",
			specs: []string{"operationId=op_id"},
			line:  `{"operationId":"ignored"}`,
			want:  []member{},
		},
		{
			name:  "fields swap names",
			specs: []string{"type=result", "result=type"},
			line:  `{"type":"timeout","result":"attempt"}`,
			want:  []member{{"type", `"attempt"`, ndjson.String, false}, {"result", `"timeout"`, ndjson.String, false}},
		},
		{
			name:  "null value is kept for Decode",
			specs: []string{"scope=p.s"},
			line:  `{"p":{"s":null}}`,
			want:  []member{{"scope", "null", ndjson.Null, false}},
		},
		{
			name:  "object value is kept for Decode",
			specs: []string{"scope=p"},
			line:  `{"p":{"s":1}}`,
			want:  []member{{"scope", `{"s":1}`, ndjson.Object, false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Parse(tt.specs)
			if err != nil {
				t.Fatal(err)
			}
			var p ndjson.Parser
			members, err := p.Parse([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			got, err := m.Members(members)
			if err != nil {
				t.Fatalf("Members: %v", err)
			}
			if diff := cmp.Diff(tt.want, view(got)); diff != "" {
				t.Errorf("members (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecode runs mapped lines through audit.Decoder.Decode, which does all
// the validation.
func TestDecode(t *testing.T) {
	m, err := Load("billing.yaml", []byte(`map:
  type: kind
  operationId: op_id
  attemptId: request.id
  idempotencyKey: request.headers.Idempotency-Key
  payloadHash: request.body_hash
  result: outcome
  effectRef: provider.object_id
  observedAt: ts
`))
	if err != nil {
		t.Fatal(err)
	}
	flags, err := Parse([]string{"scope=provider.name"})
	if err != nil {
		t.Fatal(err)
	}
	m = m.Merge(flags)

	tests := []struct {
		name string
		line string
		want audit.Record
		err  string
	}{
		{
			name: "attempt",
			line: `{"kind":"attempt","op_id":"op-ticket-42","request":{"id":"att-1","headers":{"Idempotency-Key":"k1"},"body_hash":"sha256:d1"},"outcome":"timeout","provider":{"name":"zendesk"},"ts":"2026-11-29T09:00:00.120Z","attempt":1}`,
			want: audit.Record{
				Type: audit.Attempt, OperationID: "op-ticket-42", AttemptID: "att-1", IdempotencyKey: "k1",
				Scope: "zendesk", PayloadHash: "sha256:d1", Result: "timeout", AttemptNumber: 1,
				HasObservedAt: true, ObservedAt: mustInstant(t, "2026-11-29T09:00:00.120Z"),
			},
		},
		{
			name: "effect, escaped ref",
			line: `{"kind":"effect","op_id":"op-ticket-42","provider":{"name":"zendesk","object\u005fid":"ticket-\u003908"}}`,
			want: audit.Record{Type: audit.Effect, OperationID: "op-ticket-42", Scope: "zendesk", Result: "present", EffectRef: "ticket-908"},
		},
		{
			name: "own type member is not read",
			line: `{"type":"attempt","op_id":"op-1"}`,
			err:  `field "type": missing; want "attempt" or "effect"`,
		},
		{
			name: "missing nested ref",
			line: `{"kind":"effect","op_id":"op-1","provider":{"name":"zendesk"}}`,
			err:  `field "effectRef": missing or empty on a present effect`,
		},
		{
			name: "wrong type at the path",
			line: `{"kind":"attempt","op_id":42}`,
			err:  `field "operationId": want a string, got number 42`,
		},
		{
			name: "bad time at the path",
			line: `{"kind":"attempt","op_id":"op-1","ts":"2026-11-29 09:00:00Z"}`,
			err:  `field "observedAt": "2026-11-29 09:00:00Z": `,
		},
		{
			name: "empty string is absent",
			line: `{"kind":"attempt","op_id":"op-1","provider":{"name":""}}`,
			want: audit.Record{Type: audit.Attempt, OperationID: "op-1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var p ndjson.Parser
			members, err := p.Parse([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			mapped, err := m.Members(members)
			if err != nil {
				t.Fatal(err)
			}
			var d audit.Decoder
			got, err := d.Decode(mapped, audit.Position{Line: 7})
			if tt.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
					t.Fatalf("Decode error = %v, want prefix %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			tt.want.Pos = audit.Position{Line: 7}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
}

func mustInstant(t *testing.T, s string) audit.Instant {
	t.Helper()
	i, err := audit.ParseInstant(s)
	if err != nil {
		t.Fatal(err)
	}
	return i
}

// TestMembersReuse checks that the scratch space of one call does not leak
// into the next.
func TestMembersReuse(t *testing.T) {
	m, err := Parse([]string{"operationId=a.b"})
	if err != nil {
		t.Fatal(err)
	}
	var p ndjson.Parser
	for _, tt := range []struct{ line, want string }{
		{`{"a":{"b":"first"},"type":"attempt"}`, `"first"`},
		{`{"a":{"b":"second-and-longer"}}`, `"second-and-longer"`},
		{`{"a":{"c":1}}`, ""},
	} {
		members, err := p.Parse([]byte(tt.line))
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.Members(members)
		if err != nil {
			t.Fatal(err)
		}
		var value string
		for _, g := range got {
			if string(g.Name) == "operationId" {
				value = string(g.Value)
			}
		}
		if value != tt.want {
			t.Errorf("%s: operationId = %q, want %q", tt.line, value, tt.want)
		}
	}
}

func TestMembersUnparsedValue(t *testing.T) {
	m, err := Parse([]string{"operationId=a.b"})
	if err != nil {
		t.Fatal(err)
	}
	// Members not from the Parser: the nested value is not JSON.
	_, err = m.Members([]ndjson.Member{{Name: []byte("a"), Value: []byte("{oops"), Kind: ndjson.Object}})
	if err == nil {
		t.Fatal("Members accepted a malformed nested object")
	}
	if !errors.Is(err, ndjson.ErrSyntax) {
		t.Errorf("error %v does not wrap ndjson.ErrSyntax", err)
	}
}
