package ephemeral

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// A message id names one delivery: the store's incarnation, the queue
// partition's number, the message's sequence number, the delivery's
// attempt and a hash of the group it went to, in hex:
// "<incarnation:016x>-<partition>-<seq>-<attempt>-<group hash>". Clients
// treat it as opaque. The incarnation is what lets an ack after a restart
// answer stale; the attempt is what keeps an ack of an earlier delivery
// from settling a later one; the group hash keeps an ack sent with another
// group from settling that group's delivery of the same message.
type msgID struct {
	inc     uint64
	pid     uint32
	seq     uint64
	attempt int
	group   uint32
}

func (id msgID) String() string {
	return fmt.Sprintf("%016x-%x-%x-%x-%x", id.inc, id.pid, id.seq, id.attempt, id.group)
}

// groupHash is the FNV-1a hash of a group's name.
func groupHash(name string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()
}

// parseID reads an id String made; ok is false for anything else.
func parseID(s string) (id msgID, ok bool) {
	f := strings.Split(s, "-")
	if len(f) != 5 || len(f[0]) != 16 {
		return id, false
	}
	var err [5]error
	var pid, attempt, group uint64
	id.inc, err[0] = strconv.ParseUint(f[0], 16, 64)
	pid, err[1] = strconv.ParseUint(f[1], 16, 32)
	id.seq, err[2] = strconv.ParseUint(f[2], 16, 64)
	attempt, err[3] = strconv.ParseUint(f[3], 16, 31)
	group, err[4] = strconv.ParseUint(f[4], 16, 32)
	for _, e := range err {
		if e != nil {
			return msgID{}, false
		}
	}
	id.pid, id.attempt, id.group = uint32(pid), int(attempt), uint32(group)
	return id, true
}
