// Package trust owns what makes an Adapter Card trustworthy: the RFC 8785
// canonical JSON form (JCS) a card is signed over, JWS signing and
// verification of cards (RS256, ES256, EdDSA via go-jose), the pinning of an
// artifact's SHA-256 digest inside a signed card, and the key store that maps
// a signature's key id to a public key and a trust level (keys from config,
// JWKS files and JWKS URLs).
//
// trust sits just above abi: it must never import registry, host, discovery,
// server, runtimes or cmd. Callers hand it raw card bytes; it knows nothing
// about what a card describes beyond its "signature" and "artifact" members.
package trust
