package engine

// json_each and json_tree, table-valued functions (tvf.go) with SQLite's columns: key, value,
// type, atom, id, parent, fullkey, path, and the hidden json and root. An id is what SQLite's
// is: the byte offset of the element (of its label, for an object member) in the JSONB encoding
// of the whole document, whose header sizes the sizes of the payloads decide.

import (
	"strconv"

	"github.com/cairndb/cairn/sql/value"
)

var jsonEachCols = []tableFuncCol{
	{name: "key"}, {name: "value"}, {name: "type"}, {name: "atom"}, {name: "id"}, {name: "parent"},
	{name: "fullkey"}, {name: "path"}, {name: "json", hidden: true}, {name: "root", hidden: true},
}

func init() {
	for _, f := range []struct {
		name string
		tree bool
		out  jsonEmit
	}{
		{"json_each", false, jsonText}, {"json_tree", true, jsonText},
		{"jsonb_each", false, jsonBlob}, {"jsonb_tree", true, jsonBlob}, // value of a container: JSONB
	} {
		tableFuncs[f.name] = &tableFunc{name: f.name, cols: jsonEachCols, minArg: 0, maxArg: 2,
			rows: func(a []value.Value) ([][]value.Value, error) { return jsonEachRows(a, f.tree, f.out) }}
	}
}

// jsonbSizes records the size of each node's JSONB encoding (header and payload).
func jsonbSizes(n *jsonNode, sizes map[*jsonNode]int) int {
	_, payload := jsonbPayload(n)
	p := len(payload)
	for _, k := range n.kids {
		p += jsonbSizes(k, sizes)
	}
	s := jsonbHeader(p) + p
	sizes[n] = s
	return s
}

// jsonbHeader is the size of a JSONB header for a payload of p bytes.
func jsonbHeader(p int) int {
	switch {
	case p <= 11:
		return 1
	case p <= 0xff:
		return 2
	case p <= 0xffff:
		return 3
	}
	return 5
}

// jsonEachWalk makes the rows of json_each or json_tree.
type jsonEachWalk struct {
	sizes    map[*jsonNode]int
	json     value.Value
	root     value.Value
	rows     [][]value.Value
	recurse  bool
	rootText []byte
	out      jsonEmit // makes the value of an array or object
}

func jsonEachRows(a []value.Value, tree bool, out jsonEmit) ([][]value.Value, error) {
	if len(a) == 0 {
		return nil, nil
	}
	doc, ok, err := jsonArg(a[0])
	if !ok {
		return nil, err
	}
	rootText := []byte("$")
	var steps []jsonPathStep
	if len(a) == 2 {
		var ok bool
		steps, ok, err = pathArg(a[1])
		if !ok {
			return nil, err
		}
		rootText = a[1].AppendText(nil)
	}
	w := &jsonEachWalk{sizes: map[*jsonNode]int{}, json: a[0], recurse: tree, rootText: rootText, out: out}
	if len(a) == 2 {
		w.root = value.TextBytes(rootText)
	} else {
		w.root = value.TextString("$")
	}
	jsonbSizes(doc, w.sizes)
	// Follow the path, keeping the offsets.
	n, off, id := doc, 0, 0
	var key value.Value
	for _, st := range steps {
		first := off + headerOf(w, n)
		switch {
		case st.isKey && n.kind == jsonObject:
			i := findLabel(n, st.key)
			if i < 0 {
				return nil, nil
			}
			for _, k := range n.kids[:i] {
				first += w.sizes[k]
			}
			id = first
			key = value.TextBytes(decodeJSONString(n.kids[i].raw))
			off = first + w.sizes[n.kids[i]]
			n = n.kids[i+1]
		case !st.isKey && n.kind == jsonArray:
			i := st.arrayIndex(len(n.kids))
			if i < 0 || i >= int64(len(n.kids)) {
				return nil, nil
			}
			for _, k := range n.kids[:i] {
				first += w.sizes[k]
			}
			id, off = first, first
			key = value.Int(i)
			n = n.kids[i]
		default:
			return nil, nil
		}
	}
	parentPath := rootText
	if len(steps) > 0 {
		parentPath = trimLastStep(rootText)
	}
	if tree || n.kind != jsonArray && n.kind != jsonObject {
		if !tree {
			key, parentPath = value.Value{}, rootText
		}
		w.row(n, key, value.Int(int64(id)), value.Value{}, rootText, parentPath)
		if tree {
			w.kids(n, off, value.Int(int64(id)), rootText)
		}
		return w.rows, nil
	}
	w.kids(n, off, value.Value{}, rootText)
	return w.rows, nil
}

// headerOf returns the header size of n's encoding.
func headerOf(w *jsonEachWalk, n *jsonNode) int {
	s := w.sizes[n]
	for h := 1; h <= 5; h++ {
		if jsonbHeader(s-h) == h {
			return h
		}
	}
	return 1
}

// trimLastStep removes the last step of a path's text.
func trimLastStep(p []byte) []byte {
	if len(p) > 0 && p[len(p)-1] == ']' {
		for i := len(p) - 1; i >= 0; i-- {
			if p[i] == '[' {
				return p[:i]
			}
		}
	}
	if len(p) > 0 && p[len(p)-1] == '"' {
		for i := len(p) - 2; i > 0; i-- {
			if p[i] == '"' && p[i-1] == '.' {
				return p[:i-1]
			}
		}
	}
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '.' || p[i] == '[' {
			return p[:i]
		}
	}
	return p
}

// row appends the row of node n.
func (w *jsonEachWalk) row(n *jsonNode, key, id, parent value.Value, fullkey, path []byte) {
	v := jsonSQLValueOut(n, w.out)
	atom := v
	if n.kind == jsonArray || n.kind == jsonObject {
		atom = value.Value{}
	}
	w.rows = append(w.rows, []value.Value{key, v, value.TextString(jsonKindNames[n.kind]), atom, id, parent,
		value.TextBytes(fullkey), value.TextBytes(path), w.json, w.root})
}

// kids appends the rows of the elements or members of container n, which starts at offset off
// and whose row has id parentID (NULL for json_each), and, for json_tree, of their descendants.
func (w *jsonEachWalk) kids(n *jsonNode, off int, parentID value.Value, path []byte) {
	if n.kind != jsonArray && n.kind != jsonObject {
		return
	}
	pos := off + headerOf(w, n)
	step := 1
	if n.kind == jsonObject {
		step = 2
	}
	for i := 0; i < len(n.kids); i += step {
		var key value.Value
		var full []byte
		full = append(full, path...)
		id := pos
		child, childOff := n.kids[i], pos
		if step == 2 {
			label := n.kids[i]
			key = value.TextBytes(decodeJSONString(label.raw))
			full = appendPathLabel(append(full, '.'), label.raw)
			child, childOff = n.kids[i+1], pos+w.sizes[label]
			pos += w.sizes[label]
		} else {
			key = value.Int(int64(i))
			full = append(strconv.AppendInt(append(full, '['), int64(i), 10), ']')
		}
		pos += w.sizes[child]
		w.row(child, key, value.Int(int64(id)), parentID, full, path)
		if w.recurse {
			w.kids(child, childOff, value.Int(int64(id)), full)
		}
	}
}

// appendPathLabel appends an object label to a full key: bare when it is an ASCII letter and
// then letters and digits, else in double quotes, as SQLite writes it.
func appendPathLabel(dst, raw []byte) []byte {
	plain := len(raw) > 0
	for i, c := range raw {
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (i == 0 || c < '0' || c > '9') {
			plain = false
			break
		}
	}
	if plain {
		return append(dst, raw...)
	}
	dst = append(dst, '"')
	dst = append(dst, raw...)
	return append(dst, '"')
}
