package bench

import (
	"encoding/binary"
	"math/rand/v2"
)

// KeySize is the length of every key of the suite.
const KeySize = 16

// mix is a bijection of uint64 (multiplication by an odd constant), so that mixed indexes are
// distinct and spread over the key space in random order.
func mix(i uint64) uint64 { return i * 0x9E3779B97F4A7C15 }

// RandomKey appends key number i of the random-order key space to dst: consecutive i land far
// apart. Distinct i give distinct keys.
func RandomKey(dst []byte, i uint64) []byte {
	dst = binary.BigEndian.AppendUint64(dst, mix(i))
	return binary.BigEndian.AppendUint64(dst, i)
}

// SeqKey appends key number i of the sequential key space to dst: keys ascend with i.
func SeqKey(dst []byte, i uint64) []byte {
	dst = binary.BigEndian.AppendUint64(dst, i)
	return binary.BigEndian.AppendUint64(dst, mix(i))
}

// valuePool is random bytes that values are cut from: incompressible, like most real values,
// so that an engine that compresses (Pebble) gets no advantage from the data.
var valuePool = func() []byte {
	rng := rand.New(rand.NewPCG(42, 42))
	b := make([]byte, 4<<20)
	for i := 0; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], rng.Uint64())
	}
	return b
}()

// Value returns the value of key number i, size bytes long (size at most 1 MiB): a slice of a
// shared pool, which the caller must not modify.
func Value(i uint64, size int) []byte {
	off := int(mix(i)>>40) % (len(valuePool) - size)
	return valuePool[off : off+size]
}
