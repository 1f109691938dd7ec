package wire

// Transaction is a decoded binary transaction.
type Transaction struct {
	// Counts asks for the answer that counts the pushes and acks (flag 2).
	Counts bool
	// Head is the JSON transaction body without its pushes, as sent
	// (empty: none); the caller parses it.
	Head []byte
	// Groups are the pushes, framed as a flag-8 push frames them.
	Groups []Group
}

// Transaction decodes a binary transaction body (it starts with
// TxnMagic). Errors are an *Error naming the place, or ErrTooLarge.
func (d *Decoder) Transaction(body []byte) (Transaction, error) {
	r, flags, err := head("binary transaction", TxnMagic, FlagCounts, body)
	if err != nil {
		return Transaction{}, err
	}
	t := Transaction{Counts: flags&FlagCounts != 0}
	t.Head = r.take(r.u32("head"), "head")
	if r.err != nil {
		return Transaction{}, r.err
	}
	spent := 0
	t.Groups, err = d.frameGroups(r, &spent)
	return t, err
}

// AppendTransaction appends a binary transaction body to dst, as the
// client encodes one: head (the JSON body without its pushes; nil for
// none), then groups framed and compressed. Every message needs its ID.
func AppendTransaction(dst []byte, head []byte, groups []Group, counts bool) ([]byte, error) {
	flags := byte(0)
	if counts {
		flags = FlagCounts
	}
	dst = append(append(dst, TxnMagic...), flags)
	dst = append(appendU32(dst, len(head)), head...)
	return appendFrameGroups(dst, groups)
}
