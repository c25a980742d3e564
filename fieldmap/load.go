package fieldmap

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

// maxNesting bounds flow nesting ("[[[", "{a: {") before the YAML parser
// sees the tokens: its run time grows faster than quadratically with depth,
// while a mapping file needs two levels.
const maxNesting = 16

// Load reads a mapping file: YAML holding one key, map, whose value maps
// ledger fields to paths:
//
//	map:
//	  operationId: op_id
//	  effectRef: provider.object_id
//	  payloadHash: 'meta.hash\.v2'   # the member "hash.v2" of meta
//
// name is the file name errors carry; data is the whole file. A leading
// UTF-8 byte order mark is ignored, and an empty file or an empty map maps
// nothing. The file is strict: another top-level key, a field that is not a
// ledger field, a field given twice, a path that is not a non-empty string,
// and anchors, aliases, tags or merge keys are errors. Write a path with a
// backslash plain or in single quotes: in double quotes YAML reads the
// backslash as its own escape. The error, if any, is an *Error naming the
// file and line.
func Load(name string, data []byte) (*Map, error) {
	m, e := load(name, data)
	if e != nil {
		// Returned only when non-nil: a nil *Error in an error interface
		// would not compare equal to nil.
		return nil, e
	}
	return m, nil
}

func load(name string, data []byte) (*Map, *Error) {
	errAt := func(n ast.Node, format string, args ...any) *Error {
		line, col := nodePos(n)
		return &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
	}

	tokens := lexer.Tokenize(strings.TrimPrefix(string(data), "\ufeff"))
	depth := 0
	for _, tk := range tokens {
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			if depth++; depth > maxNesting {
				return nil, &Error{File: name, Line: tk.Position.Line, Column: tk.Position.Column,
					Msg: fmt.Sprintf("nested more than %d levels deep", maxNesting)}
			}
		case token.SequenceEndType, token.MappingEndType:
			if depth > 0 {
				depth--
			}
		}
	}
	f, err := parser.Parse(tokens, 0)
	if err != nil {
		return nil, yamlError(name, err)
	}

	var body ast.Node
	for _, doc := range f.Docs {
		if doc == nil || doc.Body == nil {
			continue
		}
		if body != nil {
			return nil, errAt(doc.Body, "a second YAML document; a mapping file holds one")
		}
		body = doc.Body
	}
	m := &Map{}
	if body == nil {
		return m, nil
	}
	top, ok := entries(body)
	if !ok {
		return nil, errAt(body, "want a mapping with the key map, got %s", describe(body))
	}
	for _, kv := range top {
		key, e := keyName(kv, errAt)
		if e != nil {
			return nil, e
		}
		if key != "map" {
			return nil, errAt(kv.Key, "unknown key %q; valid keys: map", key)
		}
		if _, null := kv.Value.(*ast.NullNode); null || kv.Value == nil {
			continue
		}
		fields, ok := entries(kv.Value)
		if !ok {
			return nil, errAt(kv.Value, "map: want a mapping of ledger field to path, got %s", describe(kv.Value))
		}
		for _, fv := range fields {
			field, e := keyName(fv, errAt)
			if e != nil {
				return nil, e
			}
			i := fieldIndex(field)
			if i < 0 {
				return nil, errAt(fv.Key, "map: %s", unknownField(field))
			}
			if m.paths[i].segs != nil {
				return nil, errAt(fv.Key, "map: %s is mapped twice", field)
			}
			var text string
			switch v := fv.Value.(type) {
			case *ast.StringNode:
				text = v.Value
			case *ast.NullNode:
				return nil, errAt(fv, "map.%s: empty path", field)
			case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode:
				return nil, errAt(fv.Value, "map.%s: want a path (a string), got %s; quote it", field, describe(fv.Value))
			default:
				return nil, errAt(fv.Value, "map.%s: want a path (a string), got %s", field, describe(fv.Value))
			}
			segs, err := parsePath(text)
			if err != nil {
				return nil, errAt(fv.Value, "map.%s: %v", field, err)
			}
			m.paths[i] = path{text: text, segs: segs}
		}
	}
	return m, nil
}

// entries returns the members of a YAML mapping. A mapping with a single
// key is a lone MappingValueNode in the AST.
func entries(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch n := n.(type) {
	case *ast.MappingNode:
		return n.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{n}, true
	}
	return nil, false
}

// keyName returns a mapping key that is a plain string.
func keyName(kv *ast.MappingValueNode, errAt func(ast.Node, string, ...any) *Error) (string, *Error) {
	if s, ok := kv.Key.(*ast.StringNode); ok {
		return s.Value, nil
	}
	return "", errAt(kv.Key, "want a name as key, got %s", describe(kv.Key))
}

// describe names what a node is, for a message.
func describe(n ast.Node) string {
	switch n.(type) {
	case nil:
		return "nothing"
	case *ast.AnchorNode:
		return "an anchor (&), which a mapping file does not use"
	case *ast.AliasNode:
		return "an alias (*), which a mapping file does not use"
	case *ast.TagNode:
		return "a tag (!), which a mapping file does not use"
	case *ast.MergeKeyNode:
		return "a merge key (<<), which a mapping file does not use"
	case *ast.MappingKeyNode:
		return "an explicit key (?), which a mapping file does not use"
	case *ast.SequenceNode:
		return "a list"
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.NullNode:
		return "null"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	}
	return "a " + strings.ToLower(n.Type().String())
}

// nodePos is where a reader would look for n. A block mapping's own token is
// the colon of its first entry, so its first key stands in for it.
func nodePos(n ast.Node) (line, col int) {
	switch v := n.(type) {
	case nil:
		return 1, 0
	case *ast.MappingNode:
		if !v.IsFlowStyle && len(v.Values) > 0 {
			return nodePos(v.Values[0].Key)
		}
	case *ast.MappingValueNode:
		return nodePos(v.Key)
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Line, tk.Position.Column
	}
	return 1, 0
}

func yamlError(name string, err error) *Error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			return &Error{File: name, Line: tk.Position.Line, Column: tk.Position.Column, Msg: printable(ye.GetMessage())}
		}
		return &Error{File: name, Line: 1, Msg: printable(ye.GetMessage())}
	}
	// The parser reports every error with its token; this is a fallback for
	// a version that does not.
	return &Error{File: name, Line: 1, Msg: printable(err.Error())}
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
