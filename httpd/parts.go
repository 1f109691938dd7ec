package httpd

import "net/http"

// Parts are the optional parts of a broker, each serving its family of
// routes; a nil part's routes are not registered (404 no_such_route).
// The broker binary fills every one from a Full with PartsOf, so that a
// method its broker lacks is a compile error; New finds them on a Broker
// by assertion, for tests' fakes that serve a few.
type Parts struct {
	Consumer   Consumer   // pop, ack and lease routes (API.md §2)
	Transactor Transactor // POST /transaction
	Admin      Admin      // consumer groups, DLQ, messages, queue deletion (§8)
	KVConsole  KVConsole  // the KV console's reads
	Locker     Locker     // POST /locks
	Timerer    Timerer    // /timers
	Statuser   Statuser   // /status/* and /resources/* of the counts
	Ephemeral  Ephemeral  // /ephemeral/*
	Tracer     Tracer     // /traces
	Streamer   Streamer   // /streams/v1
	Cluster    Cluster    // /raft/members
}

// Full is a broker that serves every route: Broker and every optional
// part. NewFull takes one, so that a method the broker lacks is a compile
// error rather than routes that answer 404.
type Full interface {
	Broker
	Consumer
	Transactor
	Admin
	KVConsole
	Locker
	Timerer
	Statuser
	Ephemeral
	Tracer
	Streamer
	Cluster
}

// PartsOf is every part of f: each field is f itself, set statically,
// without an assertion.
func PartsOf(f Full) Parts {
	return Parts{Consumer: f, Transactor: f, Admin: f, KVConsole: f, Locker: f, Timerer: f, Statuser: f, Ephemeral: f,
		Tracer: f, Streamer: f, Cluster: f}
}

// partsOf is the parts b has, found by assertion (New's path).
func partsOf(b Broker) Parts {
	var p Parts
	p.Consumer, _ = b.(Consumer)
	p.Transactor, _ = b.(Transactor)
	p.Admin, _ = b.(Admin)
	p.KVConsole, _ = b.(KVConsole)
	p.Locker, _ = b.(Locker)
	p.Timerer, _ = b.(Timerer)
	p.Statuser, _ = b.(Statuser)
	p.Ephemeral, _ = b.(Ephemeral)
	p.Tracer, _ = b.(Tracer)
	p.Streamer, _ = b.(Streamer)
	p.Cluster, _ = b.(Cluster)
	return p
}

// NewFull returns the HTTP API of API.md with every route, served over
// f: the broker binary's path. It panics when f is nil.
func NewFull(f Full, o Options) http.Handler {
	if f == nil {
		panic("httpd: NewFull: nil Full")
	}
	h, _ := build(f, PartsOf(f), o)
	return h
}
