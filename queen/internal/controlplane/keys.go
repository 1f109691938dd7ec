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

// idLen is how many hex digits of a key's sha256 are its id.
const idLen = 16

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
	return httpd.CPKey{ID: hash[:idLen], Cluster: k.Cluster, Scopes: k.Scopes, Env: k.Env, CreatedAt: iso(k.CreatedAtUs), Key: key}
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
		return keyOut(hash, row, key), nil
	}
	var old keyRow
	if _, ok, err := p.kv.get(ctx, keyPrefix+hash, &old); err != nil {
		return httpd.CPKey{}, err
	} else if ok {
		if key == "" && old.Cluster == row.Cluster && slices.Equal(old.Scopes, row.Scopes) && old.Env == row.Env {
			return keyOut(hash, old, ""), nil
		}
		return httpd.CPKey{}, httpd.CPError(http.StatusConflict, httpd.CodeCPConflict, "key "+hash[:idLen]+" is registered already")
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
	rows, err := p.kv.list(ctx, keyPrefix)
	if err != nil {
		return nil, err
	}
	ks, err := decodeRows[keyRow](rows)
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
	if len(id) != idLen || strings.Trim(id, "0123456789abcdef") != "" {
		return false, httpd.CPError(http.StatusBadRequest, httpd.CodeBadRequest, "key id "+quote(id)+" is not an id: 16 lower-case hex digits")
	}
	rows, err := p.kv.list(ctx, keyPrefix+id)
	if err != nil {
		return false, err
	}
	removed := false
	for _, r := range rows {
		applied, err := p.kv.write(ctx, deleteOp(r.Key, r.Version))
		if err != nil {
			return removed, err
		}
		removed = removed || applied
	}
	p.keys.flush()
	return removed, nil
}

// KeyGrant is what a valid key grants: its cluster's broker tenant and
// effective status, and its scopes.
type KeyGrant struct {
	ID           string // the key's id (the first hex digits of its sha256)
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
	if g, ok, hit := p.keys.get(hash); hit {
		return g, ok, nil
	}
	var k keyRow
	_, ok, err := p.kv.get(ctx, keyPrefix+hash, &k)
	if err != nil {
		return KeyGrant{}, false, err
	}
	var g KeyGrant
	if ok {
		c, tstatus, err := p.lookup(ctx, k.Cluster)
		switch {
		case isCode(err, httpd.CodeCPClusterUnknown):
			ok = false
		case err != nil:
			return KeyGrant{}, false, err
		default:
			g = KeyGrant{ID: hash[:idLen], Cluster: k.Cluster, BrokerTenant: c.row.BrokerTenant, Status: worse(c.row.Status, tstatus), Scopes: k.Scopes}
		}
	}
	p.keys.put(hash, g, ok)
	return g, ok, nil
}

// keyCache keeps key checks for keyCacheTTL.
type keyCache struct {
	mu sync.Mutex
	m  map[string]keyEntry
}

type keyEntry struct {
	g  KeyGrant
	ok bool
	at time.Time
}

// keyCacheMax bounds the cache: past it, it starts over.
const keyCacheMax = 10_000

func newKeyCache() *keyCache { return &keyCache{m: map[string]keyEntry{}} }

func (c *keyCache) get(hash string) (KeyGrant, bool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, hit := c.m[hash]
	if !hit || time.Since(e.at) > keyCacheTTL {
		return KeyGrant{}, false, false
	}
	return e.g, e.ok, true
}

func (c *keyCache) put(hash string, g KeyGrant, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= keyCacheMax {
		c.m = map[string]keyEntry{}
	}
	c.m[hash] = keyEntry{g: g, ok: ok, at: time.Now()}
}

func (c *keyCache) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = map[string]keyEntry{}
}
