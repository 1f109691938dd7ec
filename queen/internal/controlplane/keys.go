package controlplane

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/queen-mq/queen-go/httpd"
)

// KeyPrefix starts every proxy API key: qk_<env>_<secret>.
const KeyPrefix = "qk_"

// A key's id is its sha256 in hex, all of it: two keys never share one.

// keyCacheTTL is how long a node trusts a key check it made: a revoked
// key, or one whose cluster was suspended, stops working on every node
// within it (at once on the node that made the change).
const keyCacheTTL = time.Second

// hashKey is a key's sha256 in hex, the only form stored.
func hashKey(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:])
}

// mintKey makes a key for env: qk_<env>_ and 32 characters of a-z, A-Z
// and 0-9 (190 bits).
func mintKey(env string) string {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 32)
	for i := range b {
		b[i] = alphabet[randIndex(len(alphabet))]
	}
	return KeyPrefix + env + "_" + string(b)
}

// randIndex is a uniform index below n from crypto/rand (rejection
// sampling, so no character is likelier than another).
func randIndex(n int) int {
	limit := 256 - 256%n
	var b [1]byte
	for {
		rand.Read(b[:])
		if int(b[0]) < limit {
			return int(b[0]) % n
		}
	}
}

func keyOut(hash string, k keyRow, key string) httpd.CPKey {
	return httpd.CPKey{ID: hash, Cluster: k.Cluster, Scopes: k.Scopes, Env: k.Env, CreatedAt: iso(k.CreatedAtUs), Key: key}
}

// RegisterKey stores a key of a cluster: the hash the caller gave, or a
// key minted here, answered this once and never again. Registering the
// same hash for the same cluster and scopes again answers it again; for
// another, 409 conflict.
func (p *Plane) RegisterKey(ctx context.Context, spec httpd.CPKeySpec) (httpd.CPKey, error) {
	c, tstatus, err := p.lookup(ctx, spec.Cluster)
	if err != nil {
		return httpd.CPKey{}, err
	}
	if worse(c.row.Status, tstatus) == httpd.CPStatusDeleting {
		return httpd.CPKey{}, deleting("cluster " + spec.Cluster)
	}
	env := spec.Env
	if env == "" {
		env = "live"
	}
	scopes := slices.Clone(spec.Scopes)
	slices.Sort(scopes)
	row := keyRow{Cluster: spec.Cluster, Scopes: scopes, Env: env, CreatedAtUs: p.nowUs()}
	key, hash := "", spec.Hash
	if hash == "" {
		key = mintKey(env)
		hash = hashKey(key)
	}
	applied, err := p.kv.write(ctx, putOp(keyPrefix+hash, row, 0), checkOp(clusterPrefix+spec.Cluster, c.version))
	if err != nil {
		return httpd.CPKey{}, err
	}
	if applied {
		p.keys.flush() // a check of this key just before is stale
		return keyOut(hash, row, key), nil
	}
	var old keyRow
	if _, ok, err := p.kv.get(ctx, keyPrefix+hash, &old); err != nil {
		return httpd.CPKey{}, err
	} else if ok {
		if key == "" && old.Cluster == row.Cluster && slices.Equal(old.Scopes, row.Scopes) && old.Env == row.Env {
			return keyOut(hash, old, ""), nil
		}
		return httpd.CPKey{}, httpd.CPError(http.StatusConflict, httpd.CodeCPConflict, "key "+hash+" is registered already")
	}
	return httpd.CPKey{}, errBusy // the cluster changed under the write
}

// Keys lists the keys, of one cluster or ("") of all.
func (p *Plane) Keys(ctx context.Context, clusterSlug string) ([]httpd.CPKey, error) {
	if clusterSlug != "" {
		if _, _, err := p.lookup(ctx, clusterSlug); err != nil {
			return nil, err
		}
	}
	rows, ks, err := listAs[keyRow](ctx, p.kv, keyPrefix)
	if err != nil {
		return nil, err
	}
	out := []httpd.CPKey{}
	for i, k := range ks {
		if clusterSlug == "" || k.Cluster == clusterSlug {
			out = append(out, keyOut(strings.TrimPrefix(rows[i].Key, keyPrefix), k, ""))
		}
	}
	return out, nil
}

// RevokeKey removes the key whose id is id; false when there is none.
func (p *Plane) RevokeKey(ctx context.Context, id string) (bool, error) {
	if len(id) != sha256.Size*2 || strings.Trim(id, "0123456789abcdef") != "" {
		return false, httpd.CPError(http.StatusBadRequest, httpd.CodeBadRequest, "key id "+quote(id)+" is not an id: 64 lower-case hex digits")
	}
	removed, err := p.deleteRow(ctx, keyPrefix+id)
	p.keys.flush()
	return removed, err
}

// KeyGrant is what a valid key grants: its cluster's broker tenant and
// effective status, and its scopes.
type KeyGrant struct {
	ID           string // the key's id (its sha256 in hex)
	Cluster      string
	BrokerTenant string
	Status       string // the cluster's effective status
	Scopes       []string
}

// Has reports whether the grant has scope s.
func (g KeyGrant) Has(s string) bool { return slices.Contains(g.Scopes, s) }

// CheckKey looks a presented key up: ok false when it is not registered
// (or its cluster is gone). A check is cached for keyCacheTTL.
func (p *Plane) CheckKey(ctx context.Context, key string) (KeyGrant, bool, error) {
	hash := hashKey(key)
	g, ok, hit, gen := p.keys.get(hash)
	if hit {
		return g, ok, nil
	}
	var k keyRow
	_, ok, err := p.kv.get(ctx, keyPrefix+hash, &k)
	if err != nil {
		return KeyGrant{}, false, err
	}
	if ok {
		c, tstatus, err := p.lookup(ctx, k.Cluster)
		switch {
		case isCode(err, httpd.CodeCPClusterUnknown):
			ok = false
		case err != nil:
			return KeyGrant{}, false, err
		default:
			g = KeyGrant{ID: hash, Cluster: k.Cluster, BrokerTenant: c.row.BrokerTenant, Status: worse(c.row.Status, tstatus), Scopes: k.Scopes}
		}
	}
	p.keys.put(hash, g, ok, gen)
	return g, ok, nil
}

// keyCache keeps key checks for keyCacheTTL. Checks that found no key
// are kept apart and bounded on their own, so a spray of made-up keys
// never evicts a real one. A check that began before a flush (a revoke,
// a status change) is not kept: gen tells.
type keyCache struct {
	mu  sync.Mutex
	gen uint64
	ok  map[string]keyEntry
	bad map[string]keyEntry
}

type keyEntry struct {
	g  KeyGrant
	at time.Time
}

// keyCacheMax bounds each of the cache's two maps: past it, that map
// starts over.
const keyCacheMax = 10_000

func newKeyCache() *keyCache { return &keyCache{ok: map[string]keyEntry{}, bad: map[string]keyEntry{}} }

// get answers a cached check (hit false: none) and the generation a
// check made now must be put with.
func (c *keyCache) get(hash string) (g KeyGrant, ok, hit bool, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, found := c.ok[hash]; found && time.Since(e.at) <= keyCacheTTL {
		return e.g, true, true, c.gen
	}
	if e, found := c.bad[hash]; found && time.Since(e.at) <= keyCacheTTL {
		return KeyGrant{}, false, true, c.gen
	}
	return KeyGrant{}, false, false, c.gen
}

func (c *keyCache) put(hash string, g KeyGrant, ok bool, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return // a flush came between the read and now
	}
	m := &c.bad
	if ok {
		m = &c.ok
	}
	if len(*m) >= keyCacheMax {
		*m = map[string]keyEntry{}
	}
	(*m)[hash] = keyEntry{g: g, at: time.Now()}
}

func (c *keyCache) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.ok, c.bad = map[string]keyEntry{}, map[string]keyEntry{}
}
