package jwtauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"golang.org/x/time/rate"
)

// unknownKIDEvery is how often a token naming a key the JWKS lacks may
// make it be fetched (or read) again before its refresh interval: a key
// rotation is seen at its first token, and tokens of made-up kids cannot
// make the broker fetch more often than this.
const unknownKIDEvery = 30 * time.Second

// IsJWKSFile says whether a JWT_JWKS_URL value names a file: a file://
// URL or a path (anything that is not http:// or https://). It answers
// the file's path.
func IsJWKSFile(s string) (string, bool) {
	if u, err := url.Parse(s); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		return "", false
	}
	if p, ok := strings.CutPrefix(s, "file://"); ok {
		return p, true
	}
	return s, true
}

// newJWKS is the key set of a JWKS URL (keyfunc's HTTP storage: fetched
// at start, again every refresh and on an unknown kid, each fetch within
// timeout) or file (read at start, again every refresh and on an
// unknown kid). A first fetch that fails is logged and retried at the
// next refresh; a file that cannot be read at start is an error.
func newJWKS(ctx context.Context, c *Config, log *slog.Logger) (keyfunc.Keyfunc, error) {
	if path, ok := IsJWKSFile(c.JWKSURL); ok {
		f := &fileJWKS{path: path, Storage: jwkset.NewMemoryStorage(), log: log,
			limit: rate.NewLimiter(rate.Every(unknownKIDEvery), 1)}
		if err := f.load(ctx); err != nil {
			return nil, err
		}
		go f.refresh(ctx, c.JWKSRefresh)
		return keyfunc.New(keyfunc.Options{Ctx: ctx, Storage: f})
	}
	noError := true
	timeout := c.JWKSTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	return keyfunc.NewDefaultOverrideCtx(ctx, []string{c.JWKSURL}, keyfunc.Override{
		Client:            c.HTTPClient,
		HTTPTimeout:       timeout,
		RefreshInterval:   c.JWKSRefresh,
		RefreshUnknownKID: rate.NewLimiter(rate.Every(unknownKIDEvery), 1),
		// It bounds the wait for the limiter and the fetch after it: the
		// limiter refuses at once a wait longer than this (30 s), so a
		// request never waits for it, and the fetch has the timeout.
		RateLimitWaitMax:          timeout,
		NoErrorReturnFirstHTTPReq: &noError,
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				log.WarnContext(ctx, "jwtauth: JWKS fetch failed", "url", u, "err", err)
			}
		},
	})
}

// fileJWKS is a JWKS read from a file into memory.
type fileJWKS struct {
	jwkset.Storage
	path  string
	log   *slog.Logger
	limit *rate.Limiter
	mu    sync.Mutex // one load at a time
}

// load reads the file and replaces the keys with its.
func (f *fileJWKS) load(ctx context.Context) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	b, err := os.ReadFile(f.path)
	if err != nil {
		return fmt.Errorf("read the JWKS file: %w", err)
	}
	var m jwkset.JWKSMarshal
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("the JWKS file %s is not a JWK Set: %w", f.path, err)
	}
	keys, err := m.JWKSlice()
	if err != nil {
		return fmt.Errorf("the JWKS file %s: %w", f.path, err)
	}
	return f.KeyReplaceAll(ctx, keys)
}

// refresh reads the file again every interval until ctx ends; a read
// that fails keeps the keys it had, and is logged.
func (f *fileJWKS) refresh(ctx context.Context, every time.Duration) {
	if every <= 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := f.load(ctx); err != nil {
				f.log.WarnContext(ctx, "jwtauth: JWKS file read failed", "path", f.path, "err", err)
			}
		}
	}
}

// KeyRead reads the file again when it lacks keyID (at most once per
// unknownKIDEvery), as the HTTP storage fetches again.
func (f *fileJWKS) KeyRead(ctx context.Context, keyID string) (jwkset.JWK, error) {
	k, err := f.Storage.KeyRead(ctx, keyID)
	if !errors.Is(err, jwkset.ErrKeyNotFound) || !f.limit.Allow() {
		return k, err
	}
	if lerr := f.load(ctx); lerr != nil {
		f.log.WarnContext(ctx, "jwtauth: JWKS file read failed", "path", f.path, "err", lerr)
		return k, err
	}
	return f.Storage.KeyRead(ctx, keyID)
}

var _ jwkset.Storage = (*fileJWKS)(nil)
