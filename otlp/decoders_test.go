package otlp

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/effectaudit/effectaudit/audit"
	"github.com/effectaudit/effectaudit/ndjson"
)

// exportGen writes random OTLP/JSON exports of the shapes the converter
// reads, with the variations decoders can disagree on: key case, nulls,
// values of the wrong type, numbers as strings and as numbers, escapes,
// white space, several variants in one AnyValue, members it ignores.
type exportGen struct {
	r     *rand.Rand
	noisy bool // members dropped, null or of the wrong type; otherwise the spans mostly convert
}

func (g *exportGen) pick(options ...string) string { return options[g.r.IntN(len(options))] }

// key writes a member name in one of the cases encoding/json matches.
func (g *exportGen) key(name string) string {
	switch g.r.IntN(6) {
	case 0:
		return `"` + strings.ToUpper(name) + `"`
	case 1:
		return `"` + strings.ToUpper(name[:1]) + name[1:] + `"`
	case 2:
		return `"` + strings.Replace(name, name[:1], `\u00`+fmt.Sprintf("%02x", name[0]), 1) + `"`
	}
	return `"` + name + `"`
}

func (g *exportGen) str() string {
	return g.pick(`"op-1"`, `"attempt"`, `"effect"`, `"timeout"`, `"x\"y"`, `"\u00e9\ud83d\ude00"`, `""`, `"a\nb"`,
		`"\u0000"`, `" 17"`, `"17"`, `"-3"`, `"1e3"`, `"99999999999999999999"`, `"2026-11-29T09:00:00Z"`, `"deadline exceeded"`)
}

func (g *exportGen) scalar() string {
	return g.pick(g.str(), g.str(), `17`, `-3`, `0`, `1.5`, `1e3`, `true`, `false`, `null`, `[]`, `{}`, `[1,"a"]`,
		`{"a":{"b":[null]}}`, `1795942800123456789`, `99999999999999999999`)
}

// object writes an object of the members, shuffled, with some dropped,
// some null, and an unknown one now and then.
func (g *exportGen) object(members map[string]func() string) string {
	var parts []string
	for name, value := range members {
		n := g.r.IntN(8)
		if !g.noisy {
			n = 7
		}
		switch n {
		case 0:
			continue
		case 1:
			parts = append(parts, g.key(name)+`:null`)
		case 2:
			parts = append(parts, g.key(name)+`:`+g.scalar())
		default:
			parts = append(parts, g.key(name)+` : `+value())
		}
	}
	if g.r.IntN(4) == 0 {
		parts = append(parts, `"other":`+g.scalar()) // any value, in any object
	}
	g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return "{" + strings.Join(parts, ",") + "}"
}

func (g *exportGen) list(n int, elem func() string) string {
	var parts []string
	for range g.r.IntN(n + 1) {
		if g.r.IntN(10) == 0 {
			parts = append(parts, "null")
		} else {
			parts = append(parts, elem())
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (g *exportGen) anyValue() string {
	if !g.noisy {
		return `{"stringValue":` + g.str() + `}`
	}
	variants := map[string]func() string{}
	for _, v := range []string{"stringValue", "intValue", "boolValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"} {
		if g.r.IntN(4) == 0 {
			variants[v] = g.scalar
		}
	}
	if len(variants) == 0 || g.r.IntN(2) == 0 {
		variants[g.pick("stringValue", "stringValue", "intValue")] = g.scalar
	}
	return g.object(variants)
}

func (g *exportGen) attributes() string {
	if !g.noisy && g.r.IntN(3) > 0 {
		// What a span that converts carries, then anything.
		return `[{"key":"effect.record","value":{"stringValue":` + g.pick(`"attempt"`, `"effect"`) + `}},` +
			`{"key":"effect.operation_id","value":{"stringValue":"op-1"}},` +
			`{"key":"effect.ref","value":{"stringValue":` + g.str() + `}},` +
			`{"key":"effect.idempotency_key","value":{"stringValue":` + g.str() + `}}]`
	}
	return g.list(6, func() string {
		return g.object(map[string]func() string{
			"key": func() string {
				return g.pick(`"effect.record"`, `"effect.operation_id"`, `"effect.attempt_id"`, `"effect.idempotency_key"`,
					`"effect.scope"`, `"effect.payload_hash"`, `"effect.result"`, `"effect.ref"`, `"effect.observed_at"`,
					`"effect.attempt"`, `"error.type"`, `"other"`)
			},
			"value": g.anyValue,
		})
	})
}

func (g *exportGen) export() string {
	span := func() string {
		return g.object(map[string]func() string{
			"spanId": func() string {
				if !g.noisy {
					return g.pick(`"00f067aa0ba902b7"`, `"00F067AA0BA902B7"`, `""`)
				}
				return g.str()
			},
			"endTimeUnixNano": func() string {
				if !g.noisy {
					return g.pick(`"1795942800123456789"`, `1795942800123456789`, `"0"`, `0`)
				}
				return g.pick(`"1795942800123456789"`, `1795942800123456789`, `"0"`, g.scalar())
			},
			"attributes": g.attributes,
			"status": func() string {
				return g.object(map[string]func() string{
					"code": func() string {
						if !g.noisy {
							return g.pick(`0`, `1`, `2`, `"2"`)
						}
						return g.pick(`0`, `1`, `2`, `"2"`, `"STATUS_CODE_ERROR"`, `3`, g.scalar())
					},
					"message": g.str,
				})
			},
		})
	}
	scope := func() string {
		return g.object(map[string]func() string{
			"scope": func() string { return g.object(map[string]func() string{"attributes": g.attributes}) },
			"spans": func() string { return g.list(3, span) },
		})
	}
	resource := func() string {
		return g.object(map[string]func() string{
			"resource":   func() string { return g.object(map[string]func() string{"attributes": g.attributes}) },
			"scopeSpans": func() string { return g.list(2, scope) },
		})
	}
	return g.object(map[string]func() string{"resourceSpans": func() string { return g.list(2, resource) }})
}

// TestDecodersAgreeOnRandomExports converts random exports with the
// converter's decoder and with encoding/json: the records, the counters and
// any error must be the same. It checks that some lines convert and some
// fail, so that it tests both.
func TestDecodersAgreeOnRandomExports(t *testing.T) {
	g := &exportGen{r: rand.New(rand.NewPCG(8, 9))}
	var p ndjson.Parser
	converted, failed := 0, 0
	for i := range 20000 {
		g.noisy = i%2 == 1
		line := []byte(g.export())
		if _, err := p.Parse(line); err != nil {
			continue // a member name given twice, which the pipeline refuses before
		}
		fast := &Converter{Mapping: DefaultMapping()}
		std := &Converter{Mapping: DefaultMapping(), unmarshal: json.Unmarshal}
		var gotRecs, wantRecs []audit.Record
		gotErr := fast.Convert(line, audit.Position{Line: 1}, func(r *audit.Record) { gotRecs = append(gotRecs, r.Clone()) })
		wantErr := std.Convert(line, audit.Position{Line: 1}, func(r *audit.Record) { wantRecs = append(wantRecs, r.Clone()) })
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
			t.Fatalf("Convert(%s): error %v; encoding/json: %v", line, gotErr, wantErr)
		}
		if diff := cmp.Diff(wantRecs, gotRecs); diff != "" {
			t.Fatalf("Convert(%s): records (-encoding/json +converter):\n%s", line, diff)
		}
		if fast.Spans != std.Spans || fast.Skipped != std.Skipped {
			t.Fatalf("Convert(%s): %d spans, %d skipped; encoding/json: %d, %d", line, fast.Spans, fast.Skipped, std.Spans, std.Skipped)
		}
		if wantErr == nil && len(wantRecs) > 0 {
			converted++
		} else if wantErr != nil {
			failed++
		}
	}
	if converted < 100 || failed < 100 {
		t.Errorf("%d lines converted to records and %d failed: the generator tests too little", converted, failed)
	}
}
