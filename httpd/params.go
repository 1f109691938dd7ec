package httpd

import (
	"net/http"

	"github.com/queen-mq/queen-go/contract"
)

// params reads a query's parameters one after another, as query's own
// methods do; the first refusal sticks in err, and every read after it
// answers its zero value without looking. A route reads its parameters
// in the order it refuses them, then checks err once.
type params struct {
	q   query
	err error
}

// paramsOf reads r's query string (queryOf): a malformed one is the
// first refusal.
func paramsOf(r *http.Request) *params {
	q, err := queryOf(r)
	return &params{q: q, err: err}
}

// name is query.name, "" once err is set.
func (p *params) name(k string, n *contract.Name) string {
	if p.err != nil {
		return ""
	}
	v, err := p.q.name(k, n)
	p.err = err
	return v
}

// integer is query.integer, 0 once err is set.
func (p *params) integer(k string, r *contract.Range, def int64) int64 {
	if p.err != nil {
		return 0
	}
	n, _, err := p.q.integer(k, r, def)
	p.err = err
	return n
}

// stampRange is query.stampRange, 0, 0 once err is set.
func (p *params) stampRange() (from, to int64) {
	if p.err != nil {
		return 0, 0
	}
	from, to, p.err = p.q.stampRange()
	return from, to
}
