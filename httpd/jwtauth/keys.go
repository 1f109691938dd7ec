package jwtauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
)

// The algorithms (JWT_ALGORITHM). Auto takes every algorithm the key
// material configured can verify: HS256 with a secret, the public key's
// own algorithm, RS256, ES256 and EdDSA from a JWKS.
const (
	HS256 = "HS256"
	RS256 = "RS256"
	ES256 = "ES256"
	EdDSA = "EdDSA"
	Auto  = "auto"
)

// Algorithms lists the algorithms a token may be signed with, Auto aside.
var Algorithms = []string{HS256, RS256, ES256, EdDSA}

// ParsePublicKey reads a PEM public key (JWT_PUBLIC_KEY): a PUBLIC KEY
// block (PKIX: RSA, EC P-256 or Ed25519), an RSA PUBLIC KEY block
// (PKCS #1) or a CERTIFICATE, and answers the algorithm it verifies.
func ParsePublicKey(b []byte) (crypto.PublicKey, string, error) {
	block, rest := pem.Decode(b)
	if block == nil {
		return nil, "", errors.New("no PEM block")
	}
	if next, _ := pem.Decode(rest); next != nil {
		return nil, "", errors.New("more than one PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "PUBLIC KEY":
		key, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		key, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		var c *x509.Certificate
		if c, err = x509.ParseCertificate(block.Bytes); err == nil {
			key = c.PublicKey
		}
	default:
		return nil, "", fmt.Errorf("a PEM block of type %q, not PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE", block.Type)
	}
	if err != nil {
		return nil, "", err
	}
	alg := keyAlgorithm(key)
	if alg == "" {
		return nil, "", fmt.Errorf("a %T key, not RSA, EC P-256 or Ed25519", key)
	}
	return key, alg, nil
}

// keyAlgorithm is the algorithm a public key verifies, "" for none of
// ours.
func keyAlgorithm(key any) string {
	switch k := key.(type) {
	case *rsa.PublicKey:
		if k.N.BitLen() >= 2048 {
			return RS256
		}
	case *ecdsa.PublicKey:
		if k.Curve == elliptic.P256() {
			return ES256
		}
	case ed25519.PublicKey:
		if len(k) == ed25519.PublicKeySize {
			return EdDSA
		}
	}
	return ""
}
