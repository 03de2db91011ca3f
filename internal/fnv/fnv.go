// Package fnv is the 64-bit FNV-1a hash, as the event hash of an
// execution and the digests of recorded values use it, inlined where
// hash/fnv's interface would allocate.
package fnv

// Offset is the hash of nothing: the start of every hash.
const Offset uint64 = 14695981039346656037

// prime is FNV's 64-bit prime.
const prime uint64 = 1099511628211

// Mix returns h with v mixed in: one FNV-1a step over v as a whole.
func Mix(h, v uint64) uint64 { return (h ^ v) * prime }

// String returns the FNV-1a hash of s, byte by byte.
func String(s string) uint64 {
	h := Offset
	for i := 0; i < len(s); i++ {
		h = Mix(h, uint64(s[i]))
	}
	return h
}
