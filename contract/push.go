package contract

// PushItem is one record to append to a queue's partition: the one type
// of a pushed record from the HTTP decoder (httpd.PushItem is it) to the
// queue log's op (queuelog.PushItem is it), with its defaults filled in.
type PushItem struct {
	Queue, Partition string
	// TransactionID is the producer's id, or the message id's text when the
	// producer sent none (Dedup is then false).
	TransactionID string
	// MessageID is the broker's id of the message, chosen by the proposer.
	MessageID [16]byte
	// Dedup makes a TransactionID seen in the partition within the queue's
	// dedup window answer the original offset instead of appending.
	Dedup bool
	// Strict (with Dedup) makes such a duplicate roll the whole entry back
	// instead. The broker sets it for the pushes of a transaction and of a
	// stream cycle, so that a retried one applies nothing twice; no request
	// body sets it.
	Strict bool
	// TraceID is the producer's trace id (a UUID; zero: none), kept with
	// the record and answered with it.
	TraceID [16]byte
	// ProducerSub is the subject of the credential that pushed the record
	// (a JWT's sub; "": none, as without auth), kept with the record and
	// answered by pop and fetch. No request body sets it.
	ProducerSub string
	// Payload is the item's payload JSON text, stored byte for byte as
	// sent (sealed first when the queue is encrypted).
	Payload []byte
}
