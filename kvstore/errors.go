package kvstore

import "errors"

// A call refused before anything was proposed or read is a
// *contract.KVError (contract.CheckKVCall): its reason, the op at fault
// and a detail; the HTTP layer maps its class to a status.

// ErrCorrupt is wrapped by errors decoding a call, an answer or a stored
// row.
var ErrCorrupt = errors.New("kvstore: corrupt encoding")
