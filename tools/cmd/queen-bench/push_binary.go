package main

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/queen-mq/queen-go/httpd/wire"
)

// The bodies -body names for -mode push.
const (
	bodyJSON   = "json"   // the JSON push every client sends
	bodyBinary = "binary" // the binary push (QPB1) with transaction ids, as the client's binary_push sends it
	bodyFrames = "frames" // the binary push with the messages framed and zstd-compressed here (push_compression)
)

var bodies = []string{bodyJSON, bodyBinary, bodyFrames}

// binaryPushBody is pushBody's records (the same partitions, payloads and
// transaction ids) as a binary push body asking for the counts only: one
// group per partition, in the order the partitions first appear, as the
// client groups consecutive items of one partition. frames frames and
// compresses each group, with a version-7 id minted per message.
func binaryPushBody(o options, c, i int, payload string, frames bool) ([]byte, error) {
	groups := recordGroups(o, c, i, payload, frames)
	return wire.AppendPush(nil, groups, wire.PushOptions{Counts: true, TxnIDs: true, Frames: frames})
}

// newV7 is a version-7 UUID: the time in milliseconds, then random bits
// under the version and variant marks.
func newV7() (id [16]byte) {
	_, _ = rand.Read(id[6:])
	ms := uint64(time.Now().UnixMilli())
	var t [8]byte
	binary.BigEndian.PutUint64(t[:], ms)
	copy(id[:6], t[2:])
	id[6] = 0x70 | id[6]&0x0F
	id[8] = 0x80 | id[8]&0x3F
	return id
}

// pushCounts is the counts-only answer of a binary push.
type pushCounts struct {
	Count, Queued, Duplicate, Error int
}

// pushBinary sends one binary push and returns how many records the
// broker stored or found duplicate.
func pushBinary(ctx context.Context, client *http.Client, url string, body []byte) (int, error) {
	a, err := send(ctx, client, url+"/api/v1/push", body)
	if err != nil {
		return 0, err
	}
	var c pushCounts
	if err := json.Unmarshal(a.body, &c); err != nil || c.Count == 0 {
		return 0, fmt.Errorf("binary push answered %.200s", a.body)
	}
	if c.Error > 0 {
		return c.Count - c.Error, fmt.Errorf("binary push: %d of %d records refused", c.Error, c.Count)
	}
	return c.Count, nil
}
