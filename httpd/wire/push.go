package wire

import (
	"fmt"
	"strconv"
)

// The magic of each body and the push flags.
const (
	PushMagic = "QPB1"
	TxnMagic  = "QTB1"
	PopMagic  = "QPF1"

	FlagZstd   = 1 // push: the body is one zstd frame of raw_len bytes
	FlagCounts = 2 // push and transaction: answer the counts only
	FlagTxnIDs = 4 // push: every item carries its transaction id
	FlagFrames = 8 // push: the groups are framed messages, zstd-compressed
)

// Content types of the binary bodies.
const (
	PushContentType = "application/x-queen-push"
	PopContentType  = "application/x-queen-pop"
)

const pushFlags = FlagZstd | FlagCounts | FlagTxnIDs | FlagFrames

// Message is one message of a group.
type Message struct {
	// TransactionID is the item's; "" when it carries none (flag 4 unset,
	// or sent empty): the broker mints one.
	TransactionID string
	// ID is the message id the client minted (framed groups), else zero.
	ID [16]byte
	// Payload is one JSON document, as sent.
	Payload []byte
}

// Group is one partition's messages, in their order on the wire.
type Group struct {
	Queue, Partition string
	Messages         []Message
}

// Push is a decoded binary push.
type Push struct {
	// Counts asks for the counts-only answer (flag 2).
	Counts bool
	// Framed says the groups were framed messages with client ids (flag 8).
	Framed bool
	Groups []Group
}

// Push decodes a binary push body (it starts with PushMagic). Errors are
// an *Error naming the place, or ErrTooLarge.
func (d *Decoder) Push(body []byte) (Push, error) {
	const what = "binary push"
	r, flags, err := head(what, PushMagic, pushFlags, body)
	if err != nil {
		return Push{}, err
	}
	spent := 0
	if r.err == nil && flags&FlagZstd != 0 {
		raw := r.u32("raw_len")
		if r.err != nil {
			return Push{}, r.err
		}
		inner, err := d.inflate(what, "body", r.b[r.at:], raw, &spent)
		if err != nil {
			return Push{}, err
		}
		r = &reader{body: what, b: inner}
	}
	p := Push{Counts: flags&FlagCounts != 0, Framed: flags&FlagFrames != 0}
	if p.Framed {
		p.Groups, err = d.frameGroups(r, &spent)
	} else {
		p.Groups, err = plainGroups(r, flags&FlagTxnIDs != 0)
	}
	return p, err
}

// plainGroups reads u32 groups and the groups of a push without flag 8.
func plainGroups(r *reader, txnIDs bool) ([]Group, error) {
	minItem := 4
	if txnIDs {
		minItem += 2
	}
	groups := make([]Group, r.count("groups", 8))
	for i := range groups {
		g := &groups[i]
		at := readGroupHead(r, i, g)
		g.Messages = make([]Message, r.count(at+".n", minItem))
		for j := range g.Messages {
			m := &g.Messages[j]
			mat := at + ".messages[" + strconv.Itoa(j) + "]"
			if txnIDs {
				m.TransactionID = r.text(mat + ".transactionId")
			}
			m.Payload = r.take(r.u32(mat+".payload"), mat+".payload")
		}
		if r.err != nil {
			return nil, r.err
		}
	}
	r.end("the last group")
	return groups, r.err
}

// readGroupHead reads group i's u16 queue and u16 partition into g (the
// reading side of appendGroupHead) and returns the group's place for
// errors, "groups[i]".
func readGroupHead(r *reader, i int, g *Group) (at string) {
	at = "groups[" + strconv.Itoa(i) + "]"
	g.Queue = r.text(at + ".queue")
	g.Partition = r.text(at + ".partition")
	return at
}

// frameGroups reads u32 groups and the groups of a push with flag 8 (and
// of a binary transaction): each group's messages are one zstd frame of
// message frames.
func (d *Decoder) frameGroups(r *reader, spent *int) ([]Group, error) {
	groups := make([]Group, r.count("groups", 12))
	for i := range groups {
		g := &groups[i]
		at := readGroupHead(r, i, g)
		n := r.u32(at + ".n")
		z := r.take(r.u32(at+".z_len"), at+".z")
		if r.err != nil {
			return nil, r.err
		}
		raw, err := d.inflate(r.body, at+".z", z, -1, spent)
		if err != nil {
			return nil, err
		}
		if g.Messages, err = readFrames(r.body, at, raw, n); err != nil {
			return nil, err
		}
	}
	r.end("the last group")
	return groups, r.err
}

// frameHead is a push frame's bytes before its transaction id: u8 flags
// and the 16-byte message id (u32 body_len comes before it).
const frameHead = 1 + 16

// readFrames reads the n frames of a group's decompressed z.
func readFrames(body, at string, raw []byte, n int) ([]Message, error) {
	fr := &reader{body: body, b: raw}
	if n < 0 || n > len(raw)/(4+frameHead+2) {
		return nil, &Error{Body: body, Where: at + ".n", Problem: fmt.Sprintf("%d frames cannot fit in the %d bytes of z", n, len(raw))}
	}
	msgs := make([]Message, n)
	for j := range msgs {
		mat := at + ".messages[" + strconv.Itoa(j) + "]"
		f := &reader{body: body, b: fr.take(fr.u32(mat), mat)}
		if fr.err != nil {
			return nil, fr.err
		}
		if flags := f.u8(mat + ".flags"); f.err == nil && flags != 0 {
			return nil, &Error{Body: body, Where: mat + ".flags", Problem: fmt.Sprintf("flags 0x%02x: a pushed frame has none", flags)}
		}
		m := &msgs[j]
		copy(m.ID[:], f.take(16, mat+".id"))
		m.TransactionID = f.text(mat + ".transactionId")
		if f.err != nil {
			return nil, f.err
		}
		if m.ID[6]>>4 != 7 || m.ID[8]&0xC0 != 0x80 {
			return nil, &Error{Body: body, Where: mat + ".id", Problem: "the message id is not a version-7 UUID"}
		}
		m.Payload = f.b[f.at:]
	}
	fr.end(at + ".z")
	return msgs, fr.err
}

// PushOptions are the flags AppendPush sets.
type PushOptions struct {
	Compress bool // flag 1 (not with Frames)
	Counts   bool // flag 2
	TxnIDs   bool // flag 4: every message's TransactionID goes on the wire
	Frames   bool // flag 8: every message needs its ID (a version-7 UUID)
}

// AppendPush appends a binary push body of groups to dst, as the client
// encodes one. It fails on a text longer than 65535 bytes.
func AppendPush(dst []byte, groups []Group, o PushOptions) ([]byte, error) {
	flags := byte(0)
	for _, f := range []struct {
		on  bool
		bit byte
	}{{o.Compress && !o.Frames, FlagZstd}, {o.Counts, FlagCounts}, {o.TxnIDs && !o.Frames, FlagTxnIDs}, {o.Frames, FlagFrames}} {
		if f.on {
			flags |= f.bit
		}
	}
	dst = append(append(dst, PushMagic...), flags)
	if o.Frames {
		return appendFrameGroups(dst, groups)
	}
	body, err := appendPlainGroups(nil, groups, flags&FlagTxnIDs != 0)
	if err != nil {
		return nil, err
	}
	if flags&FlagZstd == 0 {
		return append(dst, body...), nil
	}
	return append(appendU32(dst, len(body)), compress(body)...), nil
}

func appendPlainGroups(b []byte, groups []Group, txnIDs bool) ([]byte, error) {
	b = appendU32(b, len(groups))
	var err error
	for _, g := range groups {
		if b, err = appendGroupHead(b, &g); err != nil {
			return nil, err
		}
		for _, m := range g.Messages {
			if txnIDs {
				if b, err = appendText(b, m.TransactionID, "a transaction id"); err != nil {
					return nil, err
				}
			}
			b = append(appendU32(b, len(m.Payload)), m.Payload...)
		}
	}
	return b, nil
}

// appendGroupHead appends u16 queue | u16 partition | u32 n.
func appendGroupHead(b []byte, g *Group) ([]byte, error) {
	b, err := appendText(b, g.Queue, "a queue name")
	if err != nil {
		return nil, err
	}
	if b, err = appendText(b, g.Partition, "a partition name"); err != nil {
		return nil, err
	}
	return appendU32(b, len(g.Messages)), nil
}

// appendFrameGroups appends u32 groups and each group framed and
// compressed as flag 8 lays it out.
func appendFrameGroups(b []byte, groups []Group) ([]byte, error) {
	b = appendU32(b, len(groups))
	var frames []byte
	var err error
	for _, g := range groups {
		if b, err = appendGroupHead(b, &g); err != nil {
			return nil, err
		}
		frames = frames[:0]
		for _, m := range g.Messages {
			frames = appendU32(frames, frameHead+2+len(m.TransactionID)+len(m.Payload))
			frames = append(append(frames, 0), m.ID[:]...)
			if frames, err = appendText(frames, m.TransactionID, "a transaction id"); err != nil {
				return nil, err
			}
			frames = append(frames, m.Payload...)
		}
		z := compress(frames)
		b = append(appendU32(b, len(z)), z...)
	}
	return b, nil
}
