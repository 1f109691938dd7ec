package httpd

import "strconv"

// The push body is read in one pass by jsonScan: no reflection, no map
// per item, no second validation pass per level. It answers exactly as
// decoding the body with encoding/json into maps of json.RawMessage did
// (push_ref_test.go keeps that decoder, and FuzzPushDecode compares the
// two): every syntax error anywhere, trailing bytes too, is "the body
// must be an object", whatever else is wrong, because encoding/json
// checks the whole text first; a member named twice counts with its last
// value; and an item's fields are checked in pushFields.item's order.

// errBodyNotObject refuses a body that is not one JSON object.
func errBodyNotObject() error { return badRequest("the body must be an object") }

// itemsMember is what the last items member of a push body held.
type itemsMember struct {
	kind  itemsKind
	items []PushItem
	// err is the refusal of the first item that failed, nil when none.
	err  error
	seen seenNames
}

type itemsKind uint8

const (
	itemsAbsent itemsKind = iota // no items member, or null
	itemsNotArray
	itemsArray
)

// scanPush is decodePush: it reads the body with jsonScan.
func scanPush(body []byte) ([]PushItem, error) {
	s := jsonScan{b: body}
	s.ws()
	if s.peek() != '{' {
		return nil, errBodyNotObject()
	}
	var m itemsMember
	ok := s.open()
	if ok && !s.first('}') {
		for more := true; ok && more; {
			var name []byte
			if name, ok = s.key(); ok && isName(name, "items") {
				ok = s.items(&m)
			} else if ok {
				ok = s.value()
			}
			if ok {
				more, ok = s.next('}')
			}
		}
	}
	if s.ws(); !ok || s.i != len(body) {
		return nil, errBodyNotObject()
	}
	switch {
	case m.kind == itemsAbsent:
		return nil, badRequest("items is required")
	case m.kind == itemsNotArray:
		return nil, badRequest("items must be an array")
	case m.err != nil:
		return nil, m.err
	case len(m.items) == 0:
		return nil, badRequest("items is empty")
	}
	copyPayloads(m.items)
	return m.items, nil
}

// isName reports whether the member name raw (as scanned, still escaped)
// is name once unescaped.
func isName(raw []byte, name string) bool {
	if len(raw) == len(name) && string(raw) == name {
		return true
	}
	return hasByte(raw, '\\') && string(unescape(nil, raw, 0)) == name
}

// items reads the value of an items member into m, which it resets: a
// member named again replaces the one before. The first item that fails
// sets m.err; the items after it are only scanned.
func (s *jsonScan) items(m *itemsMember) bool {
	*m = itemsMember{kind: itemsAbsent, items: m.items[:0], seen: m.seen}
	switch s.peek() {
	case 'n':
		return s.value()
	case '[':
	default:
		m.kind = itemsNotArray
		return s.value()
	}
	m.kind = itemsArray
	start := s.i
	if !s.open() {
		return false
	}
	if s.first(']') {
		return true
	}
	for n := 0; ; n++ {
		if m.err != nil {
			if !s.value() {
				return false
			}
		} else if s.peek() != '{' {
			m.err = badRequest("items[%d] must be an object", n)
			if !s.value() {
				return false
			}
		} else {
			var f pushFields
			if !s.pushItem(&f) {
				return false
			}
			if n == 0 && cap(m.items) == 0 {
				m.items = make([]PushItem, 0, estimateItems(len(s.b)-start, s.i-start))
			}
			it, err := f.item("items", n, &m.seen)
			if err != nil {
				m.err = err
			}
			m.items = append(m.items, it)
		}
		more, ok := s.next(']')
		if !ok || !more {
			return ok
		}
	}
}

// estimateItems guesses how many items an items array of rest bytes
// holds from the first item's size (first bytes from the '['), so that
// the slice of items is made once for a batch of like items.
func estimateItems(rest, first int) int {
	const most = 1024 // appending grows past it
	return min(rest/max(first, 1)+1, most)
}

// pushItem reads the item object at i, keeping the value of the last
// member of each name pushFields has.
func (s *jsonScan) pushItem(f *pushFields) bool {
	if !s.open() {
		return false
	}
	if s.first('}') {
		return true
	}
	for {
		name, ok := s.key()
		if !ok {
			return false
		}
		start := s.i
		if !s.value() {
			return false
		}
		if dst := f.member(name); dst != nil {
			*dst = s.b[start:s.i]
		}
		more, ok := s.next('}')
		if !ok || !more {
			return ok
		}
	}
}

// member is where f keeps the value of the member name (as scanned),
// nil for a member it does not keep.
func (f *pushFields) member(name []byte) *[]byte {
	if hasByte(name, '\\') {
		name = unescape(nil, name, 0)
	}
	switch string(name) {
	case "queue":
		return &f.queue
	case "partition":
		return &f.partition
	case "payload":
		return &f.payload
	case "transactionId":
		return &f.txn
	case "traceId":
		return &f.trace
	}
	return nil
}

// copyPayloads points each item's Payload, a slice of the body, at a
// copy of its bytes: one buffer holds all the copies, each capped at its
// length so that appending to one cannot touch the next.
func copyPayloads(items []PushItem) {
	n := 0
	for i := range items {
		n += len(items[i].Payload)
	}
	buf := make([]byte, 0, n)
	for i := range items {
		at := len(buf)
		buf = append(buf, items[i].Payload...)
		items[i].Payload = buf[at:len(buf):len(buf)]
	}
}

// itemPath names the item at index in base ("items[3]"), or base itself
// when index is negative. It is made only for an error message.
func itemPath(base string, index int) string {
	if index < 0 {
		return base
	}
	return base + "[" + strconv.Itoa(index) + "]"
}
