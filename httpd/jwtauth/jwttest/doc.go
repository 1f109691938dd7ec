// Package jwttest mints HS256 tokens by hand for tests that drive a real
// broker with JWT_ENABLED (queen/e2e, queenctl's end-to-end tests): the
// broker's verifier is a library (jwtauth, over golang-jwt), and a test's
// token is made apart from it, with nothing but the standard library, so
// the test does not check the verifier against itself.
package jwttest
