// Package client calls one Queen broker over its HTTP API (API.md): the
// one Go client that the project's tools and tests share (queenctl,
// queen-lake, queen-bench, the fault harness, the compat generator, the
// end-to-end tests).
//
// # What it owns
//
// The mechanics of a call and nothing of its meaning: the base URL, the
// credential (a Bearer token), the tenant header, the body (JSON, or
// bytes sent as they are, the binary push's content type when they start
// with wire.PushMagic), reading the answer, and the broker's error body
// read into an *Error. Routes, their bodies and their answers stay with
// the caller, which knows what it asked.
//
// # Invariants
//
//   - Do returns a response only with its body read whole and closed; a
//     nil response means no answer came (a *ConnError).
//   - Call decodes only a 2xx answer; any status of 300 or more is an
//     *Error that keeps the status, the broker's code and message, and
//     the body as it came.
//   - Nothing here retries: whether a call is safe to send again is the
//     caller's to know (a push with its transactionId is; a pop is not).
//
// # Usage
//
//	c := &client.Client{Base: "http://127.0.0.1:6632", Token: os.Getenv("QUEEN_TOKEN")}
//	var health struct{ Status string }
//	if _, err := c.Call(ctx, http.MethodGet, "/health", nil, &health); err != nil {
//		var e *client.Error
//		if errors.As(err, &e) && e.Code == "queue_not_found" { … }
//	}
package client
