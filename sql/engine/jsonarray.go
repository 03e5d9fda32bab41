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
	return jsonPairsFunc(name, out, func(n **jsonNode, path value.Value, steps []jsonPathStep, val *jsonNode) error {
		if jsonArrayInsert(*n, steps, val) {
			return fmt.Errorf("not an array element: '%s'", path.AppendText(nil))
		}
		return nil
	})
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
