package httpd

// Push answers are rendered by hand, without reflection: the bytes are
// those encoding/json rendered for a []pushAnswer (push_answer_test.go
// holds them to it), the members in its order, "error" only when set,
// offset null on an error, and a newline after the array.

// pushAnswerBytes is about what one element of a push answer takes: the
// buffer is made once for a batch of usual answers.
const pushAnswerBytes = 192

// appendPushAnswers appends the answer of POST /api/v1/push to b: one
// element per item, in order; a result's messageId is the broker's, else
// the one httpd minted.
//
// REQUIRES: len(results) == len(items).
func appendPushAnswers(b []byte, items []PushItem, results []PushResult) []byte {
	b = append(b, '[')
	for i := range results {
		res, it := &results[i], &items[i]
		if i > 0 {
			b = append(b, ',')
		}
		id := res.MessageID
		if id == ([16]byte{}) {
			id = it.MessageID
		}
		b = append(b, `{"index":`...)
		b = appendInt(b, int64(i))
		b = append(b, `,"message_id":"`...)
		b = appendUUID(b, id)
		b = append(b, `","transaction_id":`...)
		b = appendString(b, it.TransactionID)
		b = append(b, `,"queueName":`...)
		b = appendString(b, it.Queue)
		switch {
		case res.Error != "":
			b = append(b, `,"status":"error","error":`...)
			b = appendString(b, res.Error)
			b = append(b, `,"offset":null}`...)
			continue
		case res.Duplicate:
			b = append(b, `,"status":"duplicate","offset":`...)
		default:
			b = append(b, `,"status":"queued","offset":`...)
		}
		b = appendInt(b, res.Offset)
		b = append(b, '}')
	}
	return append(b, ']', '\n')
}

// appendUUID appends id in the text form uuid.UUID.String gives
// (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, lower case), unquoted.
func appendUUID(b []byte, id [16]byte) []byte {
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return b
}
