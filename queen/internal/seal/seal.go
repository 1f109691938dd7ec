// Package seal seals the payloads of queues with encryptionEnabled at rest:
// AES-256-GCM under QUEEN_ENCRYPTION_KEY, which every node must share.
//
// A sealed payload is the magic "\x00qs\x01", a random 12-byte nonce and
// the ciphertext with its tag. A stored payload is otherwise JSON text,
// which never starts with a NUL byte, so Open tells the two apart without
// any other state: records pushed before a queue was encrypted, or after it
// stopped being, read back as they are. The proposer seals (the nonce is
// random, so sealing stays out of the deterministic apply); every reader
// of the log (fetch, pop, the DLQ, the S3 sink) opens.
package seal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// magic starts every sealed payload.
var magic = []byte("\x00qs\x01")

const nonceSize = 12

// ErrNoKey is returned by Seal on a node without QUEEN_ENCRYPTION_KEY.
var ErrNoKey = errors.New("seal: QUEEN_ENCRYPTION_KEY is not set on this node")

// Sealer seals and opens payloads. A nil *Sealer has no key: it seals
// nothing (ErrNoKey) and opens nothing.
type Sealer struct{ aead cipher.AEAD }

// ParseKey reads QUEEN_ENCRYPTION_KEY: 32 bytes as 64 hex digits or as
// standard base64.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := hex.DecodeString(s); err == nil && len(b) == 32 {
		return b, nil
	}
	if b, err := base64.StdEncoding.DecodeString(s); err == nil && len(b) == 32 {
		return b, nil
	}
	return nil, fmt.Errorf("it must be 32 bytes, as 64 hex digits or in base64")
}

// New makes a Sealer with a 32-byte key.
func New(key []byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("seal: a key of %d bytes, want 32", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts payload under a fresh random nonce.
func (s *Sealer) Seal(payload []byte) ([]byte, error) {
	if s == nil {
		return nil, ErrNoKey
	}
	out := make([]byte, len(magic)+nonceSize, len(magic)+nonceSize+len(payload)+s.aead.Overhead())
	copy(out, magic)
	if _, err := rand.Read(out[len(magic):]); err != nil {
		return nil, err
	}
	return s.aead.Seal(out, out[len(magic):], payload, nil), nil
}

// Sealed reports whether b is a sealed payload.
func Sealed(b []byte) bool { return bytes.HasPrefix(b, magic) }

// Open returns the payload a stored one holds: b itself when it is not
// sealed; the plaintext when this Sealer's key opens it; otherwise (no key,
// another key, damaged bytes) ok is false and payload is b as a JSON
// string, so that what readers render stays JSON.
func (s *Sealer) Open(b []byte) (payload []byte, ok bool) {
	if !Sealed(b) {
		return b, true
	}
	if s != nil && len(b) >= len(magic)+nonceSize {
		nonce := b[len(magic) : len(magic)+nonceSize]
		if p, err := s.aead.Open(nil, nonce, b[len(magic)+nonceSize:], nil); err == nil {
			return p, true
		}
	}
	q, _ := json.Marshal(string(b))
	return q, false
}
