package httpd

import "net/http"

// apiRoute is one route of /api/v1 in the route table: on says its part
// is there (Broker's routes are always on).
type apiRoute struct {
	on              bool
	class           Class
	method, pattern string
	h               http.Handler
}

// apiRoutes is the route table of /api/v1: every route, its access class
// and whether the broker serves it, in one list to read as API.md's.
//
// A pop leases messages, so it is not a safe method: HEAD on a pop route
// is 404 no_such_route rather than a GET whose messages nobody would see.
// The Admin routes' reads are ClassRead, every change ClassAdmin; chi
// tries a static segment before a parameter, whatever the order of
// registration, so GET /consumer-groups/lagging is always the lagging
// list (a group named "lagging" cannot be described, only deleted and
// sought); it is listed first all the same, to read in the order it
// matches. The Statuser's /resources/queues/{queue}/depth lives beside
// resources/queues/{queue}, which Broker serves. The families' own docs
// are in their files: route_ephemeral.go, route_timers.go,
// route_traces.go, route_raft.go.
func (s *server) apiRoutes() []apiRoute {
	st, c, a, tm, tr, kc, e, cl := s.st != nil, s.c != nil, s.a != nil, s.tm != nil, s.tr != nil, s.kc != nil, s.e != nil, s.cl != nil
	no := http.HandlerFunc(noRoute)
	return []apiRoute{
		{true, ClassPush, http.MethodPost, "/push", s.push()},
		{true, ClassRead, http.MethodPost, "/fetch", s.fetch()},
		{true, ClassRead, http.MethodPost, "/fetch/offsets", s.fetchOffsets()},
		{true, ClassRead, http.MethodPost, "/partitions/changed", s.partitionsChanged()},
		{true, ClassConfigure, http.MethodPost, "/configure", s.configure()},
		{true, ClassShared, http.MethodPost, "/kv", s.kvCall()},
		{true, ClassSharedRead, http.MethodGet, "/kv/{ns}/*", s.kvGet()},
		{true, ClassShared, http.MethodPut, "/kv/{ns}/*", s.kvPut()},
		{true, ClassShared, http.MethodDelete, "/kv/{ns}/*", s.kvDelete()},
		{true, ClassRead, http.MethodGet, "/resources/queues", s.queues()},
		{true, ClassRead, http.MethodGet, "/resources/queues/{queue}", s.queue()},
		{true, ClassRead, http.MethodPost, "/stats/refresh", statsRefresh()},
		{true, ClassNode, http.MethodGet, "/analytics/system-metrics", s.systemMetrics()},
		{true, ClassNode, http.MethodGet, "/analytics/worker-metrics", s.workerMetrics()},

		{st, ClassRead, http.MethodGet, "/status", s.apiStatus()},
		{st, ClassRead, http.MethodGet, "/status/queues", s.statusQueues()},
		{st, ClassRead, http.MethodGet, "/status/queues/{queue}", s.statusQueue()},
		{st, ClassRead, http.MethodGet, "/status/analytics", s.analytics()},
		{st, ClassRead, http.MethodGet, "/resources/overview", s.overview()},
		{st, ClassRead, http.MethodGet, "/resources/namespaces", s.namespaces()},
		{st, ClassRead, http.MethodGet, "/resources/tasks", s.tasks()},
		{st, ClassRead, http.MethodGet, "/resources/partitions", s.partitions()},
		{st, ClassRead, http.MethodGet, "/resources/queues/{queue}/depth", s.depth()},

		{c, ClassConsume, http.MethodGet, "/pop", s.popDiscover()},
		{c, ClassConsume, http.MethodHead, "/pop", no},
		{c, ClassConsume, http.MethodGet, "/pop/queue/{queue}", s.pop(false)},
		{c, ClassConsume, http.MethodHead, "/pop/queue/{queue}", no},
		{c, ClassConsume, http.MethodGet, "/pop/queue/{queue}/partition/{partition}", s.pop(true)},
		{c, ClassConsume, http.MethodHead, "/pop/queue/{queue}/partition/{partition}", no},
		{c, ClassConsume, http.MethodPost, "/ack", s.ack()},
		{c, ClassConsume, http.MethodPost, "/ack/batch", s.ackBatch()},
		{c, ClassConsume, http.MethodPost, "/lease/{leaseId}/extend", s.extendLease()},

		{s.t != nil, ClassTxn, http.MethodPost, "/transaction", s.transaction()},

		{a, ClassRead, http.MethodGet, "/consumer-groups/lagging", s.laggingGroups()},
		{a, ClassRead, http.MethodGet, "/consumer-groups", s.consumerGroups()},
		{a, ClassRead, http.MethodGet, "/consumer-groups/{group}", s.consumerGroup()},
		{a, ClassAdmin, http.MethodDelete, "/consumer-groups/{group}", s.deleteGroup(false)},
		{a, ClassAdmin, http.MethodDelete, "/consumer-groups/{group}/queues/{queue}", s.deleteGroup(true)},
		{a, ClassAdmin, http.MethodPost, "/consumer-groups/{group}/subscription", s.setSubscription()},
		{a, ClassAdmin, http.MethodDelete, "/resources/queues/{queue}", s.deleteQueue()},
		{a, ClassAdmin, http.MethodPost, "/consumer-groups/{group}/queues/{queue}/seek", s.seekGroup(false)},
		{a, ClassAdmin, http.MethodPost, "/consumer-groups/{group}/queues/{queue}/partitions/{partition}/seek", s.seekGroup(true)},
		{a, ClassRead, http.MethodGet, "/dlq", s.dlq()},
		{a, ClassAdmin, http.MethodDelete, "/dlq", s.purgeDLQ()},
		{a, ClassAdmin, http.MethodPost, "/dlq/{id}/replay", s.replayDLQ()},
		{a, ClassRead, http.MethodGet, "/messages", s.messages()},
		{a, ClassRead, http.MethodGet, "/messages/{partitionId}/*", s.message()},
		{a, ClassAdmin, http.MethodPost, "/messages/{partitionId}/*", s.retryMessage()},
		{a, ClassAdmin, http.MethodDelete, "/messages/{partitionId}/*", s.deleteMessage()},

		{s.l != nil, ClassShared, http.MethodPost, "/locks", s.locks()},

		// POST /timers is write-only (API.md §7), the DELETE read-write
		// (ClassShared, as KV writes), the peek and list reads of shared
		// state (ClassSharedRead).
		{tm, ClassTimers, http.MethodPost, "/timers", s.timersCall()},
		{tm, ClassSharedRead, http.MethodGet, "/timers/{queue}", s.timersList()},
		{tm, ClassSharedRead, http.MethodGet, "/timers/{queue}/*", s.timerPeek()},
		{tm, ClassShared, http.MethodDelete, "/timers/{queue}/*", s.timerCancel()},

		// A trace event is what a consumer records of the message it
		// works on: POST /traces is ClassConsume, the reads ClassRead.
		// chi tries a static segment before a parameter, so /traces/names
		// and /traces/by-name/… are never read as a partition id (which
		// is decimal digits anyway). The transactionId and the name are
		// the rest of the path: the official client puts them in the path
		// unescaped, '/' and all.
		{tr, ClassConsume, http.MethodPost, "/traces", s.traceRecord()},
		{tr, ClassRead, http.MethodGet, "/traces/names", s.traceNames()},
		{tr, ClassRead, http.MethodGet, "/traces/by-name/*", s.tracesByName()},
		{tr, ClassRead, http.MethodGet, "/traces/{partitionId}/*", s.tracesOf()},

		{kc, ClassSharedRead, http.MethodGet, "/resources/kv/namespaces", s.kvNamespaces()},
		{kc, ClassSharedRead, http.MethodPost, "/resources/kv/list", s.kvList()},

		{e, ClassPush, http.MethodPost, "/ephemeral/push", s.ephemeralPush()},
		{e, ClassConsume, http.MethodGet, "/ephemeral/pop", s.ephemeralPop()},
		{e, ClassConsume, http.MethodHead, "/ephemeral/pop", no},
		{e, ClassConsume, http.MethodPost, "/ephemeral/ack", s.ephemeralAck()},
		{e, ClassAdmin, http.MethodPost, "/ephemeral/configure", s.ephemeralConfigure()},
		{e, ClassAdmin, http.MethodPost, "/ephemeral/reset", s.ephemeralReset()},
		{e, ClassAdmin, http.MethodDelete, "/ephemeral/queue/{queue}", s.ephemeralDelete()},
		{e, ClassRead, http.MethodGet, "/ephemeral/queues", s.ephemeralQueues()},
		{e, ClassRead, http.MethodGet, "/ephemeral/queues/{queue}/depth", s.ephemeralDepth()},

		// The membership's read is ClassNode (a node-wide report), the
		// replace ClassCluster.
		{cl, ClassNode, http.MethodGet, "/raft/members", s.members()},
		{cl, ClassCluster, http.MethodPost, "/raft/members/replace", s.replaceMember()},
	}
}
