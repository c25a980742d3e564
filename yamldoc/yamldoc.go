// Package yamldoc reads the small, strict YAML files effectaudit takes (the
// retry policy, the field mapping) up to the point where their contents
// differ: it parses one document with goccy/go-yaml, bounds its nesting, and
// places nodes and parser errors at a line and column. What a file may hold
// is the caller's business.
package yamldoc

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// Pos is a place in a file: a 1-based line, and a 1-based column counted in
// characters, 0 when not known.
type Pos struct{ Line, Col int }

// Before reports whether a comes before b.
func (a Pos) Before(b Pos) bool {
	return a.Line < b.Line || (a.Line == b.Line && a.Col < b.Col)
}

// Error is what is wrong with a file, and where.
type Error struct {
	Pos
	Msg string // without the position
}

// Body parses data, a whole file, as at most one YAML document and returns
// its body: nil for a file with no document. A leading UTF-8 byte-order
// mark is ignored. kind names the file in messages ("policy file").
//
// Nesting deeper than maxNesting, flow ("[[[", "{a: {") or block entries
// opened on one line ("- - -"), is an error before the parser sees it: the
// parser's run time grows faster than quadratically with depth (10,000
// nested "[" take half a second, 100,000 take minutes). Block nesting by
// indentation needs no bound: its depth grows only with the square root of
// the file's size.
func Body(data []byte, maxNesting int, kind string) (ast.Node, *Error) {
	tokens := lexer.Tokenize(strings.TrimPrefix(string(data), "\ufeff"))
	for _, tk := range tokens {
		// The parser takes a directive for a document of its own, and
		// would call the one after it a second document. The lexer calls
		// a plain value starting with % a directive too: only one at the
		// start of a line is.
		if tk.Type == token.DirectiveType && tk.Position.Column == 1 {
			return nil, &Error{tokenPos(tk), "YAML directives (%YAML, %TAG) are not supported in a " + kind}
		}
	}
	if e := checkNesting(tokens, maxNesting); e != nil {
		return nil, e
	}
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		return nil, parseError(err)
	}
	var body ast.Node
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if body != nil {
			return nil, &Error{NodePos(doc.Body), "a second YAML document; a " + kind + " holds one"}
		}
		body = doc.Body
	}
	return body, nil
}

func checkNesting(tokens token.Tokens, maxNesting int) *Error {
	flow, line, opened := 0, 0, 0
	for _, tk := range tokens {
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			if flow++; flow > maxNesting {
				return &Error{tokenPos(tk), fmt.Sprintf("nested more than %d levels deep", maxNesting)}
			}
		case token.SequenceEndType, token.MappingEndType:
			if flow > 0 {
				flow--
			}
		case token.SequenceEntryType, token.MappingKeyType:
			if tk.Position.Line != line {
				line, opened = tk.Position.Line, 0
			}
			if opened++; opened > maxNesting {
				return &Error{tokenPos(tk), fmt.Sprintf("nested more than %d levels deep", maxNesting)}
			}
		}
	}
	return nil
}

func parseError(err error) *Error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		return &Error{tokenPos(ye.GetToken()), printable(ye.GetMessage())}
	}
	// The parser reports every error with its token; this is a fallback for
	// a version that does not.
	return &Error{Pos{Line: 1}, printable(err.Error())}
}

// NodePos is where a reader would look for n. A block mapping's own token
// is the colon of its first entry, so its first key stands in for it.
func NodePos(n ast.Node) Pos {
	switch v := n.(type) {
	case nil:
		return Pos{Line: 1}
	case *ast.MappingNode:
		if !v.IsFlowStyle && len(v.Values) > 0 {
			return NodePos(v.Values[0].Key)
		}
	case *ast.MappingValueNode:
		return NodePos(v.Key)
	}
	return tokenPos(n.GetToken())
}

func tokenPos(tk *token.Token) Pos {
	if tk == nil || tk.Position == nil {
		return Pos{Line: 1}
	}
	return Pos{tk.Position.Line, tk.Position.Column}
}

// printable escapes a parser message that quotes input holding control
// characters, so that the message cannot rewrite the terminal.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) < 0 {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// Entries returns the members of a mapping node: a mapping with a single
// key is a lone MappingValueNode in the AST.
func Entries(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch n := n.(type) {
	case *ast.MappingNode:
		return n.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{n}, true
	}
	return nil, false
}

// Unsupported names, in the plural for a message, the YAML feature n is of
// those the strict files refuse wherever they stand, so that both say the
// same of the same mistake; "" for any other node.
func Unsupported(n ast.Node) string {
	switch n.(type) {
	case *ast.AnchorNode:
		return "anchors (&)"
	case *ast.AliasNode:
		return "aliases (*)"
	case *ast.TagNode:
		return "tags (!)"
	case *ast.MergeKeyNode:
		return "merge keys (<<)"
	case *ast.MappingKeyNode:
		return "explicit keys (?)"
	case *ast.LiteralNode:
		return "block scalars (| and >)"
	}
	return ""
}

// Describe names what kind of value n is, for a message; ask Unsupported
// first, which says more of the nodes it names.
func Describe(n ast.Node) string {
	switch n.(type) {
	case nil:
		return "nothing"
	case *ast.StringNode:
		return "a string"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	case *ast.NullNode:
		return "null"
	case *ast.SequenceNode:
		return "a list"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	}
	kind := strings.ToLower(n.Type().String())
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
