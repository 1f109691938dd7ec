package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/s3sink/s3test"
)

// dashboardPath is the Grafana dashboard deploy/grafana/queen.json, from
// this package's directory.
var dashboardPath = filepath.Join("..", "..", "deploy", "grafana", "queen.json")

// dashboardExprs returns every PromQL expression of a Grafana dashboard,
// keyed by where it is: each panel's (and each row's nested panels')
// targets[].expr, and each query variable's query (label_values(m, l)
// counts as the expression m).
func dashboardExprs(raw []byte) (map[string]string, error) {
	var d struct {
		Panels     []json.RawMessage `json:"panels"`
		Templating struct {
			List []struct {
				Name  string          `json:"name"`
				Type  string          `json:"type"`
				Query json.RawMessage `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, err
	}
	out := map[string]string{}
	var walk func(panels []json.RawMessage) error
	walk = func(panels []json.RawMessage) error {
		for _, rp := range panels {
			var p struct {
				ID      int               `json:"id"`
				Title   string            `json:"title"`
				Panels  []json.RawMessage `json:"panels"`
				Targets []struct {
					RefID string `json:"refId"`
					Expr  string `json:"expr"`
				} `json:"targets"`
			}
			if err := json.Unmarshal(rp, &p); err != nil {
				return err
			}
			for _, t := range p.Targets {
				if strings.TrimSpace(t.Expr) != "" {
					out[fmt.Sprintf("panel %d %q target %s", p.ID, p.Title, t.RefID)] = t.Expr
				}
			}
			if err := walk(p.Panels); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(d.Panels); err != nil {
		return nil, err
	}
	labelValues := regexp.MustCompile(`^\s*label_values\(\s*(.+?)\s*(,\s*[A-Za-z_][A-Za-z0-9_]*\s*)?\)\s*$`)
	for _, v := range d.Templating.List {
		if v.Type != "query" {
			continue
		}
		var q string
		if json.Unmarshal(v.Query, &q) != nil {
			var obj struct {
				Query string `json:"query"`
			}
			if err := json.Unmarshal(v.Query, &obj); err != nil {
				return nil, fmt.Errorf("variable %s: %v", v.Name, err)
			}
			q = obj.Query
		}
		if m := labelValues.FindStringSubmatch(q); m != nil {
			q = m[1]
		}
		out["variable "+v.Name] = q
	}
	return out, nil
}

var (
	promStrings  = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|` + "`[^`]*`")
	promMatchers = regexp.MustCompile(`\{[^{}]*\}`)
	promRanges   = regexp.MustCompile(`\[[^\]]*\]`)
	promGrafana  = regexp.MustCompile(`\$\{?[A-Za-z_][A-Za-z0-9_]*\}?`)
	promClauses  = regexp.MustCompile(`(?i)\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	promIdent    = regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*(\s*\()?`)
	promNumber   = regexp.MustCompile(`(^|[^A-Za-z0-9_:.])[0-9][0-9.eE+-]*[smhdwy]?`)
	// PromQL's keywords and values that are not metric names.
	promWords = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true,
		"group_right": true, "bool": true, "and": true, "or": true, "unless": true, "offset": true, "atan2": true,
		"inf": true, "nan": true}
)

// metricNames returns the metric names an expression reads: what is left
// once strings, label matchers, range and subquery brackets, Grafana's
// variables, by/without/on/ignoring/group_x label lists, numbers and
// durations are dropped, less identifiers called as functions or
// aggregations and PromQL's keywords.
func metricNames(expr string) []string {
	s := promStrings.ReplaceAllString(expr, " ")
	s = promGrafana.ReplaceAllString(s, " ")
	s = promMatchers.ReplaceAllString(s, " ")
	s = promRanges.ReplaceAllString(s, " ")
	s = promClauses.ReplaceAllString(s, " ")
	s = promNumber.ReplaceAllString(s, "$1 ")
	var out []string
	for _, m := range promIdent.FindAllString(s, -1) {
		if strings.HasSuffix(m, "(") || promWords[strings.ToLower(m)] {
			continue
		}
		if !slices.Contains(out, m) {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	return out
}

// exposition reads a Prometheus text exposition: each family's type (from
// # TYPE) and the names of the samples present.
func exposition(text string) (types map[string]string, samples map[string]bool) {
	types, samples = map[string]string{}, map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" {
			types[f[2]] = f[3]
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name := line[:strings.IndexAny(line+" ", "{ ")]
		samples[name] = true
	}
	return types, samples
}

// missingMetrics returns, sorted, "name (where)" for every metric an
// expression names that the exposition has no sample of. A histogram's or
// summary's _bucket, _sum and _count belong to its family; a family named
// alone must have samples (its _bucket/_sum/_count for a histogram).
func missingMetrics(exprs map[string]string, text string) []string {
	types, samples := exposition(text)
	present := func(name string) bool {
		if samples[name] {
			return true
		}
		for _, suf := range []string{"_bucket", "_sum", "_count"} {
			if fam, ok := strings.CutSuffix(name, suf); ok && (types[fam] == "histogram" || types[fam] == "summary") && samples[name] {
				return true
			}
		}
		switch types[name] {
		case "histogram", "summary":
			return samples[name+"_count"]
		}
		return false
	}
	var out []string
	for where, e := range exprs {
		for _, n := range metricNames(e) {
			if !present(n) {
				out = append(out, n+" ("+where+")")
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestGrafanaExtractor: the extractor finds exactly the metrics of known
// expressions, and missingMetrics names one that an exposition lacks.
func TestGrafanaExtractor(t *testing.T) {
	for expr, want := range map[string][]string{
		`sum by (event) (rate(queen_messages_total{instance=~"$instance",event!="x"}[$__rate_interval]))`:                       {"queen_messages_total"},
		`histogram_quantile(0.99, sum by (le, route) (rate(queen_http_request_duration_seconds_bucket{route!~".*pop.*"}[5m])))`: {"queen_http_request_duration_seconds_bucket"},
		`sum(rate(a_sum[1m])) / on (instance) group_left(job) sum without (x) (rate(a_count[1m] offset 5m)) > bool 1e3`:         {"a_count", "a_sum"},
		`process_open_fds{instance=~"${instance}"} / process_max_fds and up unless absent(nope_total{a="b"})`:                   {"nope_total", "process_max_fds", "process_open_fds", "up"},
		`max_over_time(queen_raft_apply_lag_seconds[1h:1m]) or vector(0)`:                                                       {"queen_raft_apply_lag_seconds"},
		`increase(x_total[$__range]) - 2 * 1.5`:                                                                                 {"x_total"},
	} {
		if got := metricNames(expr); !slices.Equal(got, want) {
			t.Errorf("metricNames(%s) = %v, want %v", expr, got, want)
		}
	}
	const text = `# HELP h A histogram.
# TYPE h histogram
h_bucket{le="+Inf"} 1
h_sum 1
h_count 1
# TYPE c counter
c{code="200"} 3
# TYPE empty_vec counter
`
	exprs := map[string]string{
		"p1": `histogram_quantile(0.5, sum by (le) (rate(h_bucket[1m])))`,
		"p2": `rate(h_sum[1m]) / rate(h_count[1m]) + rate(c{code=~"5.."}[1m])`,
		"p3": `rate(no_such_metric_total[1m])`,
		"p4": `empty_vec + h_bucketz`,
		"v":  `c`,
	}
	if got, want := missingMetrics(exprs, text), []string{"empty_vec (p4)", "h_bucketz (p4)", "no_such_metric_total (p3)"}; !slices.Equal(got, want) {
		t.Errorf("missing %v, want %v", got, want)
	}
	// The real dashboard, with one panel naming a metric the broker lacks.
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	panels := d["panels"].([]any)
	d["panels"] = append(panels, map[string]any{"id": 999, "title": "bogus", "targets": []any{
		map[string]any{"refId": "A", "expr": `rate(queen_no_such_metric_total[5m])`}}})
	bad, _ := json.Marshal(d)
	exprs, err = dashboardExprs(bad)
	if err != nil {
		t.Fatal(err)
	}
	if e := exprs[`panel 999 "bogus" target A`]; e != `rate(queen_no_such_metric_total[5m])` {
		t.Errorf("the added panel's expression: %q", e)
	}
	if got := missingMetrics(exprs, "queen_raft_leader 1\n"); !slices.Contains(got, `queen_no_such_metric_total (panel 999 "bogus" target A)`) {
		t.Errorf("a dashboard naming a metric no node exposes is not refused: %v", got)
	}
}

// TestGrafanaDashboardMetricsExist: every metric that deploy/grafana/
// queen.json's panels and variables name is in a real node's
// /metrics/prometheus, once it has pushed, popped, acked, served KV and
// errors, and its S3 sink (versitygw) has committed a window.
func TestGrafanaDashboardMetricsExist(t *testing.T) {
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	exprs, err := dashboardExprs(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(exprs) < 20 {
		t.Fatalf("the dashboard has %d expressions: did its layout change under the extractor?", len(exprs))
	}
	// The dashboard names no data source uid: only its variable.
	if strings.Contains(string(raw), `"uid": "`) && regexp.MustCompile(`"datasource":\s*\{[^}]*"uid":\s*"[^$"][^"]*"`).Match(raw) {
		t.Errorf("the dashboard names a data source by uid: it must use ${datasource}")
	}

	gw := s3test.Versitygw(t)
	gw.Bucket(t, "lake")
	n := single(t, sinkEnv(gw, "lake")...)
	ctx := deadline(t, 60*time.Second)
	if _, err := n.push(ctx,
		pushItem{Queue: "orders", Partition: "p1", Payload: json.RawMessage(`{"n":1}`)},
		pushItem{Queue: "orders", Partition: "p1", Payload: json.RawMessage(`{"n":2}`)},
	); err != nil {
		t.Fatal(err)
	}
	_, a := n.pop(ctx, t, "orders", url.Values{"batch": {"2"}, "wait": {"false"}})
	if len(a.Messages) == 0 {
		t.Fatal("the pop got nothing")
	}
	if res := n.ack(ctx, t, a, "", "completed"); !res[0].Success {
		t.Fatalf("ack: %+v", res)
	}
	if code, err := n.call(ctx, http.MethodPut, "/api/v1/kv/grafana/k", map[string]any{"value": 1, "forever": true}, nil); err != nil || code/100 != 2 {
		t.Fatalf("kv put: %d %v", code, err)
	}
	if code, _ := n.call(ctx, http.MethodPut, "/api/v1/kv/grafana/k2", map[string]any{"value": 1}, nil); code != http.StatusBadRequest {
		t.Fatalf("kv put with no expiry: %d, want 400 (an error series)", code)
	}
	n.waitCommitted(t, "orders", 1)

	// The queue gauges answer from one walk of the applied state a second:
	// a gather just before the pushes (the sampler's, at boot) may answer
	// once more without the queue.
	var body []byte
	for deadline := time.Now().Add(10 * time.Second); ; {
		body = n.exposition(t)
		missing := missingMetrics(exprs, string(body))
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("the dashboard names metrics /metrics/prometheus does not have:\n  %s", strings.Join(missing, "\n  "))
			break
		}
		time.Sleep(200 * time.Millisecond) // polling the metrics for the condition, with a deadline
	}
	var names []string
	for _, e := range exprs {
		for _, m := range metricNames(e) {
			if !slices.Contains(names, m) {
				names = append(names, m)
			}
		}
	}
	slices.Sort(names)
	t.Logf("%d expressions over %d metrics: %s", len(exprs), len(names), strings.Join(names, " "))
	// The labelled series the panels group by are there too.
	for _, series := range []string{`(?m)^queen_messages_total\{event="completed",tenant=""\} [1-9]`,
		`(?m)^queen_http_requests_total\{method="PUT",.*,status="400"\} 1$`, `(?m)^queen_s3_windows_committed_total\{queue="orders",tenant=""\} [1-9]`,
		// The raft panels: a lone node leads itself, has applied entries, and is not far behind.
		`(?m)^queen_raft_leader 1$`, `(?m)^queen_raft_is_leader 1$`, `(?m)^queen_raft_applied_index [1-9][0-9]*$`,
		`(?m)^queen_raft_apply_lag_seconds (0|[0-9]\.[0-9e-]+|[0-9]e-[0-9]+)$`} {
		if !regexp.MustCompile(series).Match(body) {
			t.Errorf("/metrics/prometheus has no series matching %s", series)
		}
	}
}
