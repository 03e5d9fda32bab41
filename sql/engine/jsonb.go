package engine

// JSONB, SQLite's binary JSON (jsonb.html): reading it (every JSON function takes a JSONB BLOB)
// and writing it (the jsonb_* functions). Invariant: a tree encodes to the bytes SQLite writes
// for it: each element's type is the one SQLite chose when it read the text (INT5, FLOAT5 and
// TEXT5 keep the JSON5 spelling in jsonNode.src, TEXTRAW marks text an edit put there), and
// every header is the smallest that holds its payload size.

import "bytes"

// looksLikeJSONB reports whether b passes SQLite's quick test for a JSONB argument
// (jsonFuncArgMightBeBinary): a known element type whose header and payload size make up b.
func looksLikeJSONB(b []byte) bool {
	if len(b) == 0 || b[0]&0x0f > 12 {
		return false
	}
	n, size, ok := readJSONBHeader(b)
	if !ok {
		return false
	}
	if b[0]&0x0f <= 2 && size > 0 { // null, true and false have no payload
		return false
	}
	return uint64(n)+size == uint64(len(b))
}

// readJSONBHeader reads the header of the element that starts b (not empty): its length in bytes
// (1, 2, 3, 5 or 9) and the payload size it gives; ok false when b is shorter than the header.
func readJSONBHeader(b []byte) (hdr int, size uint64, ok bool) {
	switch x := uint64(b[0] >> 4); {
	case x <= 11:
		return 1, x, true
	case x == 12 && len(b) >= 2:
		return 2, uint64(b[1]), true
	case x == 13 && len(b) >= 3:
		return 3, uint64(b[1])<<8 | uint64(b[2]), true
	case x == 14 && len(b) >= 5:
		return 5, uint64(b[1])<<24 | uint64(b[2])<<16 | uint64(b[3])<<8 | uint64(b[4]), true
	case x == 15 && len(b) >= 9:
		for _, c := range b[1:9] {
			size = size<<8 | uint64(c)
		}
		return 9, size, true
	}
	return 0, 0, false
}

// JSONB element types (SQLite's jsonb.html).
const (
	jsonbNull = iota
	jsonbTrue
	jsonbFalse
	jsonbInt
	jsonbInt5
	jsonbFloat
	jsonbFloat5
	jsonbText
	jsonbTextJ
	jsonbText5
	jsonbTextRaw
	jsonbArray
	jsonbObject
)

// decodeJSONB reads a JSONB blob (SQLite's binary JSON) into a tree of canonical JSON.
func decodeJSONB(b []byte) (*jsonNode, error) {
	n, size, err := decodeJSONBElement(b, 0)
	if err != nil {
		return nil, err
	}
	if size != len(b) {
		return nil, errMalformedJSON
	}
	return n, nil
}

// decodeJSONBElement reads the element of b at depth and returns it and its size.
func decodeJSONBElement(b []byte, depth int) (*jsonNode, int, error) {
	if len(b) == 0 || depth > jsonMaxDepth {
		return nil, 0, errMalformedJSON
	}
	typ := b[0] & 0x0f
	hdr, size, ok := readJSONBHeader(b)
	if !ok {
		return nil, 0, errMalformedJSON
	}
	if size > uint64(len(b)-hdr) {
		return nil, 0, errMalformedJSON
	}
	p := b[hdr : hdr+int(size)]
	total := hdr + int(size)
	canonical := func(text []byte, want ...jsonKind) (*jsonNode, int, error) {
		n, _, _, err := parseJSON(text)
		if err != nil {
			return nil, 0, errMalformedJSON
		}
		for _, k := range want {
			if n.kind == k {
				return n, total, nil
			}
		}
		return nil, 0, errMalformedJSON
	}
	switch typ {
	case jsonbNull, jsonbTrue, jsonbFalse:
		if size != 0 {
			return nil, 0, errMalformedJSON
		}
		return &jsonNode{kind: []jsonKind{jsonNull, jsonTrue, jsonFalse}[typ]}, total, nil
	case jsonbInt, jsonbFloat:
		return canonical(p, jsonInt, jsonReal)
	case jsonbInt5, jsonbFloat5:
		n, size, err := canonical(p, jsonReal, jsonInt, jsonNull)
		if n != nil {
			n.five, n.src = true, p
		}
		return n, size, err
	case jsonbText:
		return &jsonNode{kind: jsonString, raw: appendJSONQuoted(nil, p)}, total, nil
	case jsonbTextJ:
		return canonical(append(append([]byte{'"'}, p...), '"'), jsonString)
	case jsonbText5:
		// The payload may hold a bare " (from a single-quoted string): escape it to parse.
		q := []byte{'"'}
		for i := 0; i < len(p); i++ {
			switch {
			case p[i] == '\\' && i+1 < len(p):
				q = append(q, p[i], p[i+1])
				i++
			case p[i] == '"':
				q = append(q, '\\', '"')
			default:
				q = append(q, p[i])
			}
		}
		n, size, err := canonical(append(q, '"'), jsonString)
		if n != nil {
			n.five, n.src = true, p
		}
		return n, size, err
	case jsonbTextRaw:
		return &jsonNode{kind: jsonString, raw: appendJSONQuoted(nil, p), textRaw: true}, total, nil
	case jsonbArray, jsonbObject:
		n := &jsonNode{kind: jsonArray}
		if typ == jsonbObject {
			n.kind = jsonObject
		}
		for i := 0; i < len(p); {
			k, sz, err := decodeJSONBElement(p[i:], depth+1)
			if err != nil {
				return nil, 0, err
			}
			if n.kind == jsonObject && len(n.kids)%2 == 0 && k.kind != jsonString {
				return nil, 0, errMalformedJSON
			}
			n.kids = append(n.kids, k)
			i += sz
		}
		if len(n.kids)%2 != 0 && n.kind == jsonObject {
			return nil, 0, errMalformedJSON
		}
		return n, total, nil
	}
	return nil, 0, errMalformedJSON
}

// jsonbPayload returns the payload of n's JSONB element (for a container, its size only).
func jsonbPayload(n *jsonNode) (typ byte, payload []byte) {
	switch n.kind {
	case jsonNull:
		return jsonbNull, nil
	case jsonTrue:
		return jsonbTrue, nil
	case jsonFalse:
		return jsonbFalse, nil
	case jsonInt:
		if n.five {
			return jsonbInt5, n.src
		}
		return jsonbInt, n.raw
	case jsonReal:
		if n.five {
			return jsonbFloat5, n.src
		}
		return jsonbFloat, n.raw
	case jsonString:
		switch {
		case n.textRaw:
			return jsonbTextRaw, decodeJSONString(n.raw)
		case n.five:
			return jsonbText5, n.src
		case bytes.IndexByte(n.raw, '\\') >= 0:
			return jsonbTextJ, n.raw
		}
		return jsonbText, n.raw
	case jsonArray:
		return jsonbArray, nil
	}
	return jsonbObject, nil
}

// jsonbSize returns the size of n's JSONB encoding, its header included.
func jsonbSize(n *jsonNode) int {
	_, p := jsonbPayload(n)
	size := len(p)
	for _, k := range n.kids {
		size += jsonbSize(k)
	}
	return jsonbHeader(size) + size
}

// appendJSONBHeader appends the smallest header for an element of type typ with size bytes.
func appendJSONBHeader(dst []byte, typ byte, size int) []byte {
	switch {
	case size <= 11:
		return append(dst, byte(size)<<4|typ)
	case size <= 0xff:
		return append(dst, 12<<4|typ, byte(size))
	case size <= 0xffff:
		return append(dst, 13<<4|typ, byte(size>>8), byte(size))
	}
	return append(dst, 14<<4|typ, byte(size>>24), byte(size>>16), byte(size>>8), byte(size))
}

// appendJSONB appends n's JSONB encoding.
func appendJSONB(dst []byte, n *jsonNode) []byte {
	typ, p := jsonbPayload(n)
	if n.kind != jsonArray && n.kind != jsonObject {
		dst = appendJSONBHeader(dst, typ, len(p))
		return append(dst, p...)
	}
	size := 0
	for _, k := range n.kids {
		size += jsonbSize(k)
	}
	dst = appendJSONBHeader(dst, typ, size)
	for _, k := range n.kids {
		dst = appendJSONB(dst, k)
	}
	return dst
}
