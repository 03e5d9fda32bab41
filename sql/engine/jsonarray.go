package engine

import (
	"fmt"
	"slices"

	"github.com/cairndb/cairn/sql/value"
)

// json_array_insert and jsonb_array_insert (SQLite 3.53): insert values before array elements.

func init() {
	for _, f := range []*scalarFunc{
		{name: "json_array_insert", minArgs: 1, maxArgs: -1, fn: fnJSONArrayInsert("json_array_insert", jsonText)},
		{name: "jsonb_array_insert", minArgs: 1, maxArgs: -1, fn: fnJSONArrayInsert("jsonb_array_insert", jsonBlob)},
	} {
		scalarFuncs[f.name] = f
	}
}

// fnJSONArrayInsert is json_array_insert(json, path, value, ...): each value goes before the
// array element its path names, or after the last for [#]; a path past the end, or through a
// value that is not there, changes nothing; a path ending at an object label is an error
// ("not an array element"). Missing objects and arrays on the way are made as json_insert
// makes them.
func fnJSONArrayInsert(name string, out jsonEmit) jsonScalarFn {
	return func(a []value.Value, _ value.Collation) (value.Value, error) {
		if len(a)%2 == 0 {
			return value.Value{}, fmt.Errorf("%s() needs an odd number of arguments", name)
		}
		n, ok, err := jsonArg(a[0])
		if !ok {
			return value.Value{}, err
		}
		for i := 1; i+1 < len(a); i += 2 {
			steps, ok, err := pathArg(a[i])
			if err != nil {
				return value.Value{}, err
			}
			if !ok {
				continue // a NULL path changes nothing
			}
			val, err := jsonFromValue(a[i+1])
			if err != nil {
				return value.Value{}, err
			}
			if a[i+1].Kind() == value.Text && a[i+1].Subtype() != value.SubtypeJSON {
				val.textRaw = true // as the other edits mark SQL text
			}
			if jsonArrayInsert(n, steps, val) {
				return value.Value{}, fmt.Errorf("not an array element: '%s'", a[i].AppendText(nil))
			}
		}
		return out(n), nil
	}
}

// jsonArrayInsert inserts val where steps lead below n, and reports whether they lead to an
// object label instead (an existing one, or one that inserting would make).
func jsonArrayInsert(n *jsonNode, steps []jsonPathStep, val *jsonNode) (label bool) {
	if len(steps) == 0 {
		return false // the root is no array element: nothing changes
	}
	st, rest := steps[0], steps[1:]
	endsAtLabel := steps[len(steps)-1].isKey
	switch {
	case st.isKey && n.kind == jsonObject:
		if len(rest) == 0 {
			return true
		}
		if i := findLabel(n, st.key); i >= 0 {
			return jsonArrayInsert(n.kids[i+1], rest, val)
		}
		v := jsonCreate(rest, val)
		if v != nil && !endsAtLabel {
			n.kids = append(n.kids, &jsonNode{kind: jsonString, raw: appendJSONQuoted(nil, st.key), textRaw: true}, v)
		}
		return v != nil && endsAtLabel
	case !st.isKey && n.kind == jsonArray:
		i := st.arrayIndex(len(n.kids))
		switch {
		case i < 0 || i > int64(len(n.kids)):
			return false
		case len(rest) == 0:
			n.kids = slices.Insert(n.kids, int(i), val)
			return false
		case i < int64(len(n.kids)):
			return jsonArrayInsert(n.kids[i], rest, val)
		}
		v := jsonCreate(rest, val)
		if v != nil && !endsAtLabel {
			n.kids = append(n.kids, v)
		}
		return v != nil && endsAtLabel
	}
	return false
}
