package fieldmap

import (
	"fmt"

	"github.com/effectaudit/effectaudit/yamldoc"
	"github.com/goccy/go-yaml/ast"
)

// maxNesting bounds the nesting yamldoc.Body lets through; a mapping file
// needs two levels.
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
// and anchors, aliases, tags, merge keys or directives are errors. Write a path with a
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
		at := yamldoc.NodePos(n)
		return &Error{File: name, Line: at.Line, Column: at.Col, Msg: fmt.Sprintf(format, args...)}
	}
	body, ye := yamldoc.Body(data, maxNesting, "mapping file")
	if ye != nil {
		return nil, &Error{File: name, Line: ye.Line, Column: ye.Col, Msg: ye.Msg}
	}
	m := &Map{}
	if body == nil {
		return m, nil
	}
	top, ok := yamldoc.Entries(body)
	if !ok {
		return nil, wrong(errAt, body, "", "want a mapping with the key map")
	}
	for _, kv := range top {
		key, e := keyName(kv, "", errAt)
		if e != nil {
			return nil, e
		}
		if key != "map" {
			return nil, errAt(kv.Key, "unknown key %q; valid keys: map", key)
		}
		if _, null := kv.Value.(*ast.NullNode); null || kv.Value == nil {
			continue
		}
		fields, ok := yamldoc.Entries(kv.Value)
		if !ok {
			return nil, wrong(errAt, kv.Value, "map", "want a mapping of ledger field to path")
		}
		for _, fv := range fields {
			field, e := keyName(fv, "map", errAt)
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
				return nil, errAt(fv.Value, "map.%s: want a path (a string), got %s; quote it", field, yamldoc.Describe(fv.Value))
			default:
				return nil, wrong(errAt, fv.Value, "map."+field, "want a path (a string)")
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

// keyName returns a mapping key that is a plain string, in the mapping at
// path.
func keyName(kv *ast.MappingValueNode, path string, errAt func(ast.Node, string, ...any) *Error) (string, *Error) {
	if s, ok := kv.Key.(*ast.StringNode); ok {
		return s.Value, nil
	}
	return "", wrong(errAt, kv.Key, path, "want a name as key")
}

// wrong is the error for n where want was expected, under path (the
// mapping it stands in, "" at the top): the YAML feature n is, if a
// mapping file refuses it as a policy file does, else what n is.
func wrong(errAt func(ast.Node, string, ...any) *Error, n ast.Node, path, want string) *Error {
	lead := ""
	if path != "" {
		lead = path + ": "
	}
	if what := yamldoc.Unsupported(n); what != "" {
		return errAt(n, "%s%s are not supported in a mapping file", lead, what)
	}
	return errAt(n, "%s%s, got %s", lead, want, yamldoc.Describe(n))
}
