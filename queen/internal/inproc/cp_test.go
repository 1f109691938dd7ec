package inproc

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/queen-mq/queen-go/httpd"
	"github.com/queen-mq/queen-go/kvstore"
	"github.com/queen-mq/queen-go/queen/internal/controlplane"
	"github.com/queen-mq/queen-go/queen/internal/seal"
)

const cpToken = "cp-token-of-the-inproc-tests"

// The control plane's node: tenancy on, the sink on, an encryption key.
var (
	cpOnce sync.Once
	cpN    *Node
	cpErr  error
)

func cpNode(t *testing.T) *Node {
	t.Helper()
	cpOnce.Do(func() {
		sealer, err := seal.New(bytes.Repeat([]byte{7}, 32))
		if err != nil {
			cpErr = err
			return
		}
		cpN, cpErr = Start(Options{TenancyHeader: true, CPToken: cpToken, S3Embedded: true, Sealer: sealer})
	})
	if cpErr != nil {
		t.Fatal(cpErr)
	}
	return cpN
}

// cp sends a control-plane request with the right token.
func cp(t *testing.T, h http.Handler, method, target, body string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequestWithContext(ctx(t), method, target, strings.NewReader(body))
	r.Header.Set(httpd.CPTokenHeader, cpToken)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func decode[T any](t *testing.T, w *httptest.ResponseRecorder) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatalf("answer %.400s: %v", w.Body, err)
	}
	return v
}

// spyBody records whether anything read it.
type spyBody struct {
	r    *strings.Reader
	read bool
}

func (s *spyBody) Read(p []byte) (int, error) { s.read = true; return s.r.Read(p) }
func (s *spyBody) Close() error               { return nil }

func TestCPTokenIsCheckedBeforeTheBody(t *testing.T) {
	n := cpNode(t)
	for name, token := range map[string]string{"missing": "", "wrong": "cp-token-of-the-inproc-test", "longer": cpToken + "x"} {
		body := &spyBody{r: strings.NewReader(strings.Repeat("x", 2<<20))}
		r := httptest.NewRequestWithContext(ctx(t), "POST", "/api/cp/tenants", nil)
		r.Body, r.ContentLength = body, 2<<20
		if token != "" {
			r.Header.Set(httpd.CPTokenHeader, token)
		}
		w := httptest.NewRecorder()
		n.Handler.ServeHTTP(w, r)
		want(t, w, 401, httpd.CodeUnauthorized)
		if body.read {
			t.Errorf("%s token: the body was read before the token was refused", name)
		}
	}
	// The right token with a body over 1 MiB: 413, not stored.
	w := cp(t, n.Handler, "POST", "/api/cp/tenants", `{"slug":"big","name":"`+strings.Repeat("n", 1<<20)+`"}`)
	want(t, w, 413, httpd.CodePayloadTooLarge)
	want(t, cp(t, n.Handler, "GET", "/api/cp/tenants/big", ""), 404, httpd.CodeCPTenantUnknown)
}

func TestCPRoutesNeedTheToken(t *testing.T) {
	// The shared node runs without QUEEN_PROXY_CP_TOKEN: no control plane.
	w := do(t, "GET", "/api/cp/tenants", "", httpd.CPTokenHeader, cpToken)
	want(t, w, 404, httpd.CodeNoSuchRoute)
}

func TestCPTenantsAndClusters(t *testing.T) {
	h := cpNode(t).Handler
	want(t, cp(t, h, "POST", "/api/cp/tenants", `{"slug":"acme","name":"Acme Inc."}`), 200, "")
	w := cp(t, h, "POST", "/api/cp/tenants", `{"slug":"acme"}`)
	want(t, w, 409, httpd.CodeCPConflict)
	want(t, cp(t, h, "POST", "/api/cp/tenants", `{"slug":"Acme"}`), 400, httpd.CodeCPBadSlug)
	want(t, cp(t, h, "POST", "/api/cp/tenants", `{"slug":"ok","plan":"gold"}`), 400, httpd.CodeBadRequest)
	want(t, cp(t, h, "POST", "/api/cp/tenants", `[1]`), 400, httpd.CodeBadRequest)
	want(t, cp(t, h, "GET", "/api/cp/tenants/nobody", ""), 404, httpd.CodeCPTenantUnknown)

	c1 := decode[httpd.CPCluster](t, cp(t, h, "PUT", "/api/cp/clusters/acme-prod", `{"tenant":"acme"}`))
	if c1.Tenant != "acme" || c1.Status != "active" || c1.Effective != "active" || len(c1.BrokerTenant) != 36 {
		t.Fatalf("cluster %+v", c1)
	}
	again := decode[httpd.CPCluster](t, cp(t, h, "PUT", "/api/cp/clusters/acme-prod", `{"tenant":"acme"}`))
	if again != c1 {
		t.Fatalf("ensure again answered %+v, want %+v", again, c1)
	}
	want(t, cp(t, h, "POST", "/api/cp/tenants", `{"slug":"other"}`), 200, "")
	want(t, cp(t, h, "PUT", "/api/cp/clusters/acme-prod", `{"tenant":"other"}`), 409, httpd.CodeCPConflict)
	// Another cluster cannot take acme-prod's broker tenant.
	want(t, cp(t, h, "PUT", "/api/cp/clusters/thief", `{"tenant":"other","brokerTenant":"`+c1.BrokerTenant+`"}`), 409, httpd.CodeCPConflict)
	want(t, cp(t, h, "GET", "/api/cp/clusters/thief", ""), 404, httpd.CodeCPClusterUnknown)
	want(t, cp(t, h, "PUT", "/api/cp/clusters/x", `{"tenant":"other","brokerTenant":"`+controlplane.SystemTenant+`"}`), 400, httpd.CodeBadRequest)
	want(t, cp(t, h, "PUT", "/api/cp/clusters/x", `{"tenant":"nobody"}`), 404, httpd.CodeCPTenantUnknown)

	tenant := decode[httpd.CPTenant](t, cp(t, h, "GET", "/api/cp/tenants/acme", ""))
	if tenant.Name != "Acme Inc." || len(tenant.Clusters) != 1 || tenant.Clusters[0] != "acme-prod" {
		t.Fatalf("tenant %+v", tenant)
	}
	// A suspended tenant suspends its clusters; the cluster's own status
	// stays as set.
	want(t, cp(t, h, "PUT", "/api/cp/tenants/acme/status", `{"status":"suspended"}`), 200, "")
	c := decode[httpd.CPCluster](t, cp(t, h, "GET", "/api/cp/clusters/acme-prod", ""))
	if c.Status != "active" || c.Effective != "suspended" {
		t.Fatalf("cluster of a suspended tenant: %+v", c)
	}
	want(t, cp(t, h, "PUT", "/api/cp/tenants/acme/status", `{"status":"active"}`), 200, "")
	want(t, cp(t, h, "PUT", "/api/cp/clusters/acme-prod/status", `{"status":"push_blocked"}`), 200, "")
	if c := decode[httpd.CPCluster](t, cp(t, h, "GET", "/api/cp/clusters/acme-prod", "")); c.Effective != "push_blocked" {
		t.Fatalf("push_blocked cluster: %+v", c)
	}
	want(t, cp(t, h, "PUT", "/api/cp/clusters/acme-prod/status", `{"status":"deleting"}`), 400, httpd.CodeCPInvalidStatus)
	want(t, cp(t, h, "PUT", "/api/cp/clusters/acme-prod/status", `{"status":"gone"}`), 400, httpd.CodeCPInvalidStatus)
	want(t, cp(t, h, "PUT", "/api/cp/clusters/acme-prod/status", `{"status":"active"}`), 200, "")
	list := decode[struct{ Clusters []httpd.CPCluster }](t, cp(t, h, "GET", "/api/cp/clusters?tenant=acme", ""))
	if len(list.Clusters) != 1 || list.Clusters[0].Slug != "acme-prod" {
		t.Fatalf("clusters of acme: %+v", list)
	}
}

func TestCPKeys(t *testing.T) {
	n := cpNode(t)
	h := n.Handler
	want(t, cp(t, h, "POST", "/api/cp/tenants", `{"slug":"keys"}`), 200, "")
	want(t, cp(t, h, "PUT", "/api/cp/clusters/keys-c", `{"tenant":"keys"}`), 200, "")
	k := decode[httpd.CPKey](t, cp(t, h, "POST", "/api/cp/keys", `{"cluster":"keys-c","scopes":["read","produce"],"env":"test"}`))
	if !strings.HasPrefix(k.Key, "qk_test_") || len(k.Key) != len("qk_test_")+32 || len(k.ID) != 64 {
		t.Fatalf("minted key %+v", k)
	}
	if k.Scopes[0] != "produce" || k.Scopes[1] != "read" {
		t.Fatalf("scopes %v, want sorted", k.Scopes)
	}
	listed := cp(t, h, "GET", "/api/cp/keys?cluster=keys-c", "")
	if strings.Contains(listed.Body.String(), k.Key) || strings.Contains(listed.Body.String(), `"key"`) {
		t.Fatalf("the key list shows the key: %s", listed.Body)
	}
	g, ok, err := n.CP.CheckKey(ctx(t), k.Key)
	if err != nil || !ok || g.Cluster != "keys-c" || !g.Has("produce") || g.Has("admin") || g.Status != "active" {
		t.Fatalf("check: %+v %v %v", g, ok, err)
	}
	if _, ok, _ := n.CP.CheckKey(ctx(t), k.Key+"x"); ok {
		t.Fatal("a key one character longer checks")
	}
	// The store holds the hash, never the key.
	a, err := n.KV.Do(ctx(t), controlplane.SystemTenant, []kvstore.Op{{Op: kvstore.OpGetPrefix, NS: controlplane.NS, Prefix: "k/"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range a.Results[0].Rows {
		if strings.Contains(r.Key+string(r.Value), k.Key[8:]) {
			t.Fatalf("stored row %s %s holds the key", r.Key, r.Value)
		}
	}
	want(t, cp(t, h, "POST", "/api/cp/keys", `{"cluster":"keys-c","scopes":["write"]}`), 400, httpd.CodeCPScopeUnknown)
	want(t, cp(t, h, "POST", "/api/cp/keys", `{"cluster":"keys-c","scopes":[]}`), 400, httpd.CodeBadRequest)
	want(t, cp(t, h, "POST", "/api/cp/keys", `{"cluster":"nope","scopes":["read"]}`), 404, httpd.CodeCPClusterUnknown)

	// A hash the caller minted, registered twice: the same answer.
	hash := strings.Repeat("ab", 32)
	body := `{"cluster":"keys-c","scopes":["consume"],"hash":"` + hash + `"}`
	r1 := decode[httpd.CPKey](t, cp(t, h, "POST", "/api/cp/keys", body))
	r2 := decode[httpd.CPKey](t, cp(t, h, "POST", "/api/cp/keys", body))
	if r1.ID != hash || r1.Key != "" || r1.ID != r2.ID || r1.CreatedAt != r2.CreatedAt {
		t.Fatalf("registered %+v then %+v", r1, r2)
	}
	want(t, cp(t, h, "POST", "/api/cp/keys", `{"cluster":"keys-c","scopes":["admin"],"hash":"`+hash+`"}`), 409, httpd.CodeCPConflict)

	rev := decode[struct{ Revoked bool }](t, cp(t, h, "DELETE", "/api/cp/keys/"+k.ID, ""))
	if !rev.Revoked {
		t.Fatal("revoke answered false")
	}
	if _, ok, _ := n.CP.CheckKey(ctx(t), k.Key); ok {
		t.Fatal("a revoked key still checks")
	}
	if rev := decode[struct{ Revoked bool }](t, cp(t, h, "DELETE", "/api/cp/keys/"+k.ID, "")); rev.Revoked {
		t.Fatal("a second revoke answered true")
	}
	want(t, cp(t, h, "DELETE", "/api/cp/keys/zz", ""), 400, httpd.CodeBadRequest)
}

const s3Body = `{"endpoint":"http://127.0.0.1:9","region":"us-east-1","bucket":"lake","accessKey":"AKIA","queues":"*",` +
	`"secretKey":"s3cr3t-of-the-cp-test","format":"parquet"}`

func TestCPSinks(t *testing.T) {
	n := cpNode(t)
	h := n.Handler
	want(t, cp(t, h, "POST", "/api/cp/tenants", `{"slug":"sinks"}`), 200, "")
	c := decode[httpd.CPCluster](t, cp(t, h, "PUT", "/api/cp/clusters/sinks-c", `{"tenant":"sinks"}`))
	var answers bytes.Buffer
	keep := func(w *httptest.ResponseRecorder) *httptest.ResponseRecorder { answers.Write(w.Body.Bytes()); return w }

	want(t, keep(cp(t, h, "GET", "/api/cp/clusters/sinks-c/s3", "")), 404, httpd.CodeCPS3Unset)
	w := keep(cp(t, h, "PUT", "/api/cp/clusters/sinks-c/s3", strings.Replace(s3Body, `"secretKey":"s3cr3t-of-the-cp-test",`, "", 1)))
	want(t, w, 400, httpd.CodeCPInvalid)
	wantMsg(t, w, "secretKey is required")
	w = keep(cp(t, h, "PUT", "/api/cp/clusters/sinks-c/s3", strings.Replace(s3Body, `"format"`, `"memoryMb":64,"format"`, 1)))
	want(t, w, 400, httpd.CodeCPInvalid)
	wantMsg(t, w, "QUEEN_S3_MEMORY_MB")
	w = keep(cp(t, h, "PUT", "/api/cp/clusters/sinks-c/s3", strings.Replace(s3Body, `"parquet"`, `"avro"`, 1)))
	want(t, w, 400, httpd.CodeCPInvalid)
	wantMsg(t, w, "format=avro")
	want(t, keep(cp(t, h, "PUT", "/api/cp/clusters/sinks-c/s3", `{"secretKey":"a","secretKey":"b"}`)), 400, httpd.CodeCPInvalid)
	want(t, keep(cp(t, h, "PUT", "/api/cp/clusters/sinks-c/s3", `{"secretKey":`+`"`+strings.Repeat("s", 4097)+`"}`)), 400, httpd.CodeCPInvalid)
	want(t, keep(cp(t, h, "PUT", "/api/cp/clusters/nope/s3", s3Body)), 404, httpd.CodeCPClusterUnknown)

	s := decode[httpd.CPSink](t, keep(cp(t, h, "PUT", "/api/cp/clusters/sinks-c/s3", s3Body)))
	if s.Cluster != "sinks-c" || s.Tenant != c.BrokerTenant || !s.Enabled || !s.SecretKeySet ||
		!strings.Contains(string(s.Config), `"bucket":"lake"`) || strings.Contains(string(s.Config), "secretKey") {
		t.Fatalf("stored sink %+v %s", s, s.Config)
	}
	got := decode[httpd.CPSink](t, keep(cp(t, h, "GET", "/api/cp/clusters/sinks-c/s3", "")))
	if got.UpdatedAt != s.UpdatedAt || !bytes.Equal(got.Config, s.Config) {
		t.Fatalf("GET %+v, PUT answered %+v", got, s)
	}
	rows, err := n.CP.Units(ctx(t))
	if err != nil || len(rows) != 1 || !rows[0].Runnable || rows[0].Tenant != c.BrokerTenant || !seal.Sealed(rows[0].SecretSealed) {
		t.Fatalf("sink rows %+v %v", rows, err)
	}
	first := rows[0].SecretSealed
	// Without a secret, the stored one stays; every write moves updatedAt.
	s2 := decode[httpd.CPSink](t, keep(cp(t, h, "PUT", "/api/cp/clusters/sinks-c/s3",
		strings.Replace(s3Body, `"secretKey":"s3cr3t-of-the-cp-test",`, `"enabled":false,`, 1))))
	if s2.Enabled || !s2.SecretKeySet || s2.UpdatedAt <= s.UpdatedAt {
		t.Fatalf("second PUT %+v after %+v", s2, s)
	}
	rows, _ = n.CP.Units(ctx(t))
	if !bytes.Equal(rows[0].SecretSealed, first) || rows[0].Enabled {
		t.Fatalf("a PUT without secretKey changed the sealed secret or kept enabled: %+v", rows[0])
	}
	// A rotated secret is sealed under a fresh nonce.
	keep(cp(t, h, "PUT", "/api/cp/clusters/sinks-c/s3", s3Body))
	rows, _ = n.CP.Units(ctx(t))
	if bytes.Equal(rows[0].SecretSealed, first) {
		t.Fatal("the same secret sealed twice gave the same bytes")
	}
	// The raw row holds no secret bytes.
	a, err := n.KV.Do(ctx(t), controlplane.SystemTenant, []kvstore.Op{{Op: kvstore.OpGet, NS: controlplane.NS, Key: "s/sinks-c"}})
	if err != nil || strings.Contains(string(a.Results[0].Value), "s3cr3t") {
		t.Fatalf("stored row %s (%v)", a.Results[0].Value, err)
	}
	// Suspended: the row stays, the sink does not run.
	want(t, cp(t, h, "PUT", "/api/cp/clusters/sinks-c/status", `{"status":"suspended"}`), 200, "")
	if rows, _ = n.CP.Units(ctx(t)); rows[0].Runnable {
		t.Fatal("a suspended cluster's sink is runnable")
	}
	want(t, cp(t, h, "PUT", "/api/cp/clusters/sinks-c/status", `{"status":"push_blocked"}`), 200, "")
	if rows, _ = n.CP.Units(ctx(t)); !rows[0].Runnable {
		t.Fatal("a push_blocked cluster's sink does not run")
	}
	d := decode[struct{ Removed bool }](t, keep(cp(t, h, "DELETE", "/api/cp/clusters/sinks-c/s3", "")))
	d2 := decode[struct{ Removed bool }](t, keep(cp(t, h, "DELETE", "/api/cp/clusters/sinks-c/s3", "")))
	if !d.Removed || d2.Removed {
		t.Fatalf("delete answered %v then %v", d.Removed, d2.Removed)
	}
	if strings.Contains(answers.String(), "s3cr3t") {
		t.Fatalf("an answer carries the secret: %s", answers.String())
	}
}

// TestCPSinkRefusals: the node-wide reasons a sink cannot be stored.
func TestCPSinkRefusals(t *testing.T) {
	n := cpNode(t)
	want(t, cp(t, n.Handler, "POST", "/api/cp/tenants", `{"slug":"refusals"}`), 200, "")
	want(t, cp(t, n.Handler, "PUT", "/api/cp/clusters/refusals-c", `{"tenant":"refusals"}`), 200, "")
	handler := func(o controlplane.Options) http.Handler {
		o.KV, o.Queues = n.KV, n.Broker
		return httpd.New(n.Broker, httpd.Options{ControlPlane: controlplane.New(o), CPToken: cpToken})
	}
	sealer, _ := seal.New(bytes.Repeat([]byte{7}, 32))
	noS3 := handler(controlplane.Options{TenancyHeader: true, Sealer: sealer})
	want(t, cp(t, noS3, "PUT", "/api/cp/clusters/refusals-c/s3", s3Body), 404, httpd.CodeCPS3Unavailable)
	want(t, cp(t, noS3, "GET", "/api/cp/clusters/refusals-c/s3", ""), 404, httpd.CodeCPS3Unavailable)
	noKey := handler(controlplane.Options{TenancyHeader: true, S3Embedded: true})
	want(t, cp(t, noKey, "PUT", "/api/cp/clusters/refusals-c/s3", s3Body), 409, httpd.CodeCPEncryptionNeeded)
	noTenancy := handler(controlplane.Options{S3Embedded: true, Sealer: sealer})
	want(t, cp(t, noTenancy, "PUT", "/api/cp/clusters/refusals-c/s3", s3Body), 409, httpd.CodeCPSystemTenant)
	want(t, cp(t, noTenancy, "PUT", "/api/cp/clusters/refusals-d", `{"tenant":"refusals","brokerTenant":"`+
		"11111111-2222-4333-8444-555555555555"+`"}`), 400, httpd.CodeBadRequest)
	if c := decode[httpd.CPCluster](t, cp(t, noTenancy, "PUT", "/api/cp/clusters/refusals-e", `{"tenant":"refusals"}`)); c.BrokerTenant != httpd.DefaultTenant {
		t.Fatalf("without tenancy a cluster is the default tenant, not %s", c.BrokerTenant)
	}
}

func TestCPPurgeAndDelete(t *testing.T) {
	n := cpNode(t)
	h := n.Handler
	want(t, cp(t, h, "POST", "/api/cp/tenants", `{"slug":"gone"}`), 200, "")
	c := decode[httpd.CPCluster](t, cp(t, h, "PUT", "/api/cp/clusters/gone-c", `{"tenant":"gone"}`))
	gone := mintKey(t, h, "gone-c", "produce", "read")
	want(t, cp(t, h, "POST", "/api/cp/tenants", `{"slug":"keep"}`), 200, "")
	kc := decode[httpd.CPCluster](t, cp(t, h, "PUT", "/api/cp/clusters/keep-c", `{"tenant":"keep"}`))
	keep := mintKey(t, h, "keep-c", "produce", "read")
	want(t, cp(t, h, "PUT", "/api/cp/clusters/gone-c/s3", s3Body), 200, "")
	push := `{"items":[{"queue":"orders","partition":"p","payload":{"n":1}}]}`
	want(t, n.Do(ctx(t), "POST", "/api/v1/push", []byte(push), "Authorization", "Bearer "+gone), 201, "")
	// The same queue name in another tenant survives the purge.
	want(t, n.Do(ctx(t), "POST", "/api/v1/push", []byte(push), "Authorization", "Bearer "+keep), 201, "")

	p := decode[httpd.CPPurge](t, cp(t, h, "POST", "/api/cp/tenants/gone/purge", ""))
	if p.Queues != 1 || p.Keys != 1 || p.Sinks != 1 || len(p.Clusters) != 1 {
		t.Fatalf("purge %+v", p)
	}
	if _, ok, err := n.Broker.Queue(ctx(t), c.BrokerTenant, "orders"); ok || err != nil {
		t.Fatalf("the purged tenant's queue is still there (%v)", err)
	}
	want(t, n.Do(ctx(t), "GET", "/api/v1/resources/queues/orders", nil, "Authorization", "Bearer "+gone), 401, httpd.CodeUnauthorized)
	want(t, n.Do(ctx(t), "GET", "/api/v1/resources/queues/orders", nil, "Authorization", "Bearer "+keep), 200, "")
	if _, ok, _ := n.Broker.Queue(ctx(t), kc.BrokerTenant, "orders"); !ok {
		t.Fatal("another tenant's queue of the same name was purged")
	}
	want(t, cp(t, h, "GET", "/api/cp/clusters/gone-c", ""), 200, "")

	d := decode[httpd.CPPurge](t, cp(t, h, "DELETE", "/api/cp/tenants/gone", ""))
	if !d.Removed || len(d.Clusters) != 1 {
		t.Fatalf("delete %+v", d)
	}
	want(t, cp(t, h, "GET", "/api/cp/tenants/gone", ""), 404, httpd.CodeCPTenantUnknown)
	want(t, cp(t, h, "GET", "/api/cp/clusters/gone-c", ""), 404, httpd.CodeCPClusterUnknown)
	if d := decode[httpd.CPPurge](t, cp(t, h, "DELETE", "/api/cp/tenants/gone", "")); d.Removed {
		t.Fatal("a second delete answered removed")
	}
	// Its broker tenant is free again.
	want(t, cp(t, h, "POST", "/api/cp/tenants", `{"slug":"gone"}`), 200, "")
	want(t, cp(t, h, "PUT", "/api/cp/clusters/gone-c2", `{"tenant":"gone","brokerTenant":"`+c.BrokerTenant+`"}`), 200, "")
}

// mintKey registers a key of cluster with scopes and answers it.
func mintKey(t *testing.T, h http.Handler, cluster string, scopes ...string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"cluster": cluster, "scopes": scopes})
	k := decode[httpd.CPKey](t, cp(t, h, "POST", "/api/cp/keys", string(body)))
	if k.Key == "" {
		t.Fatalf("no key minted: %+v", k)
	}
	return k.Key
}

// TestCPKeysGuardTheDataPlane: with the control plane on, a data-plane
// request needs an API key; the key's scopes decide what it reaches, its
// cluster's broker tenant is the request's whatever x-queen-tenant says,
// and its cluster's status can stop it.
func TestCPKeysGuardTheDataPlane(t *testing.T) {
	n := cpNode(t)
	h := n.Handler
	want(t, cp(t, h, "POST", "/api/cp/tenants", `{"slug":"dp"}`), 200, "")
	c := decode[httpd.CPCluster](t, cp(t, h, "PUT", "/api/cp/clusters/dp-c", `{"tenant":"dp"}`))
	produce, read := mintKey(t, h, "dp-c", "produce"), mintKey(t, h, "dp-c", "read")
	consume, admin := mintKey(t, h, "dp-c", "consume"), mintKey(t, h, "dp-c", "admin")
	as := func(key string) []string { return []string{"Authorization", "Bearer " + key} }
	push := []byte(`{"items":[{"queue":"dp","partition":"p","payload":{"n":1}}]}`)

	want(t, n.Do(ctx(t), "POST", "/api/v1/push", push), 401, httpd.CodeUnauthorized)
	want(t, n.Do(ctx(t), "POST", "/api/v1/push", push, "Authorization", "Bearer qk_live_notakey"), 401, httpd.CodeUnauthorized)
	want(t, n.Do(ctx(t), "GET", "/health", nil), 200, "") // a skip path
	// A key's tenant is its cluster's: the header cannot move it.
	want(t, n.Do(ctx(t), "POST", "/api/v1/push", push, append(as(produce), httpd.TenantHeader, httpd.DefaultTenant)...), 201, "")
	if _, ok, _ := n.Broker.Queue(ctx(t), c.BrokerTenant, "dp"); !ok {
		t.Fatal("the push did not land in the key's tenant")
	}
	if _, ok, _ := n.Broker.Queue(ctx(t), httpd.DefaultTenant, "dp"); ok {
		t.Fatal("the push landed in the tenant of the header")
	}
	// Scopes: read cannot push, produce cannot seek or configure,
	// consume pops, admin seeks, no key reads the node-wide status.
	want(t, n.Do(ctx(t), "POST", "/api/v1/push", push, as(read)...), 403, httpd.CodeForbidden)
	want(t, n.Do(ctx(t), "POST", "/api/v1/fetch", []byte(`{"entries":[{"queue":"dp","partition":"p","offset":0}]}`), as(read)...), 200, "")
	seek := []byte(`{"timestamp":"2026-01-01T00:00:00Z"}`)
	want(t, n.Do(ctx(t), "POST", "/api/v1/consumer-groups/g/queues/dp/seek", seek, as(produce)...), 403, httpd.CodeForbidden)
	configure := []byte(`{"queue":"dp","options":{"leaseTime":30}}`)
	want(t, n.Do(ctx(t), "POST", "/api/v1/configure", configure, as(produce)...), 403, httpd.CodeForbidden)
	want(t, n.Do(ctx(t), "POST", "/api/v1/configure", configure, as(admin)...), 200, "")
	pop := n.Do(ctx(t), "GET", "/api/v1/pop/queue/dp?consumerGroup=g&subscriptionMode=all", nil, as(consume)...)
	if pop.Code != 200 || !strings.Contains(pop.Body.String(), `"producerSub":"key:`) {
		t.Fatalf("pop with a consume key: %d %s", pop.Code, pop.Body)
	}
	// A transaction does only what its key reaches by the routes of their
	// own: a produce key's pushes, not a consumer's positions or acks.
	txPush := []byte(`{"operations":[{"type":"push","items":[{"queue":"dp","partition":"p","payload":{"t":1}}]}]}`)
	want(t, n.Do(ctx(t), "POST", "/api/v1/transaction", txPush, as(produce)...), 200, "")
	txSeek := []byte(`{"operations":[],"positions":[{"queue":"dp","partition":"p","consumerGroup":"g","offset":99}]}`)
	w := n.Do(ctx(t), "POST", "/api/v1/transaction", txSeek, as(produce)...)
	want(t, w, 403, httpd.CodeForbidden)
	wantMsg(t, w, "positions")
	want(t, n.Do(ctx(t), "GET", "/status", nil, as(admin)...), 403, httpd.CodeForbidden)
	want(t, n.Do(ctx(t), "GET", "/status", nil, httpd.CPTokenHeader, cpToken), 200, "")

	// Status: push_blocked refuses writes of records, not reads; suspended
	// refuses everything.
	want(t, cp(t, h, "PUT", "/api/cp/clusters/dp-c/status", `{"status":"push_blocked"}`), 200, "")
	want(t, n.Do(ctx(t), "POST", "/api/v1/push", push, as(produce)...), 403, httpd.CodeCPPushBlocked)
	want(t, n.Do(ctx(t), "POST", "/api/v1/fetch", []byte(`{"entries":[{"queue":"dp","partition":"p","offset":0}]}`), as(read)...), 200, "")
	want(t, cp(t, h, "PUT", "/api/cp/tenants/dp/status", `{"status":"suspended"}`), 200, "")
	want(t, n.Do(ctx(t), "POST", "/api/v1/fetch", []byte(`{"entries":[{"queue":"dp","partition":"p","offset":0}]}`), as(read)...), 403, httpd.CodeCPClusterSuspended)
	want(t, cp(t, h, "PUT", "/api/cp/tenants/dp/status", `{"status":"active"}`), 200, "")
	want(t, cp(t, h, "PUT", "/api/cp/clusters/dp-c/status", `{"status":"active"}`), 200, "")
	want(t, n.Do(ctx(t), "POST", "/api/v1/push", push, as(produce)...), 201, "")
	// A revoked key stops at once on the node that revoked it.
	id := decode[struct{ Keys []httpd.CPKey }](t, cp(t, h, "GET", "/api/cp/keys?cluster=dp-c", ""))
	for _, k := range id.Keys {
		if k.Scopes[0] == "produce" {
			want(t, cp(t, h, "DELETE", "/api/cp/keys/"+k.ID, ""), 200, "")
		}
	}
	want(t, n.Do(ctx(t), "POST", "/api/v1/push", push, as(produce)...), 401, httpd.CodeUnauthorized)
}

// TestCPBrokerTenantsStayOwned: a broker tenant belongs to one cluster at
// a time. The default tenant is none's with tenancy on; a delete cut
// short (its b/ row gone, its cluster left) and then retried never takes
// apart the cluster that claimed the tenant since; a cluster being
// deleted is not answered as ensured.
func TestCPBrokerTenantsStayOwned(t *testing.T) {
	n := cpNode(t)
	h := n.Handler
	want(t, cp(t, h, "POST", "/api/cp/tenants", `{"slug":"own-a"}`), 200, "")
	want(t, cp(t, h, "POST", "/api/cp/tenants", `{"slug":"own-b"}`), 200, "")
	want(t, cp(t, h, "PUT", "/api/cp/clusters/own-d", `{"tenant":"own-a","brokerTenant":"`+httpd.DefaultTenant+`"}`), 400, httpd.CodeBadRequest)

	const bt = "0000000a-0000-4000-8000-00000000000b"
	want(t, cp(t, h, "PUT", "/api/cp/clusters/own-x", `{"tenant":"own-a","brokerTenant":"`+bt+`"}`), 200, "")
	// A delete cut short: its cluster marked and its b/ row gone, as when
	// the node died between the two.
	want(t, cp(t, h, "PUT", "/api/cp/clusters/own-x/status", `{"status":"suspended"}`), 200, "")
	if _, err := n.KV.Do(ctx(t), controlplane.SystemTenant, []kvstore.Op{{Op: kvstore.OpDelete, NS: controlplane.NS, Key: "b/" + bt}}); err != nil {
		t.Fatal(err)
	}
	want(t, cp(t, h, "PUT", "/api/cp/clusters/own-y", `{"tenant":"own-b","brokerTenant":"`+bt+`"}`), 200, "")
	key := mintKey(t, h, "own-y", "produce")
	want(t, n.Do(ctx(t), "POST", "/api/v1/push", []byte(`{"items":[{"queue":"mine","partition":"p","payload":1}]}`),
		"Authorization", "Bearer "+key), 201, "")
	d := decode[httpd.CPPurge](t, cp(t, h, "DELETE", "/api/cp/clusters/own-x", ""))
	if !d.Removed || d.Queues != 0 || d.Keys != 0 {
		t.Fatalf("the retried delete %+v", d)
	}
	if _, ok, _ := n.Broker.Queue(ctx(t), bt, "mine"); !ok {
		t.Fatal("the retried delete purged the queue of the cluster that holds the broker tenant now")
	}
	want(t, n.Do(ctx(t), "POST", "/api/v1/push", []byte(`{"items":[{"queue":"mine","partition":"p","payload":2}]}`),
		"Authorization", "Bearer "+key), 201, "")
	want(t, cp(t, h, "PUT", "/api/cp/clusters/own-z", `{"tenant":"own-a","brokerTenant":"`+bt+`"}`), 409, httpd.CodeCPConflict)

	// A b/ row whose cluster is gone is taken over.
	const orphan = "0000000c-0000-4000-8000-00000000000d"
	if _, err := n.KV.Do(ctx(t), controlplane.SystemTenant, []kvstore.Op{{Op: kvstore.OpPut, NS: controlplane.NS, Key: "b/" + orphan,
		Value: []byte(`"ghost"`), Forever: true}}); err != nil {
		t.Fatal(err)
	}
	want(t, cp(t, h, "PUT", "/api/cp/clusters/own-w", `{"tenant":"own-a","brokerTenant":"`+orphan+`"}`), 200, "")
	// A cluster being deleted is not answered as ensured.
	a, err := n.KV.Do(ctx(t), controlplane.SystemTenant, []kvstore.Op{{Op: kvstore.OpGet, NS: controlplane.NS, Key: "c/own-w"}})
	if err != nil || !a.Results[0].Found {
		t.Fatal(err)
	}
	row := strings.Replace(string(a.Results[0].Value), `"status":"active"`, `"status":"deleting"`, 1)
	if _, err := n.KV.Do(ctx(t), controlplane.SystemTenant, []kvstore.Op{{Op: kvstore.OpPut, NS: controlplane.NS, Key: "c/own-w",
		Value: []byte(row), Forever: true}}); err != nil {
		t.Fatal(err)
	}
	want(t, cp(t, h, "PUT", "/api/cp/clusters/own-w", `{"tenant":"own-a","brokerTenant":"`+orphan+`"}`), 409, httpd.CodeCPDeleting)
}
