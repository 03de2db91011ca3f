package loadorstore

import (
	"maps"

	"pgregory.net/rapid"

	"github.com/weftdev/weft/lin"
)

// KV is an argument: a key and a value.
type KV struct {
	K string
	V int
}

// Got is what Load and LoadOrStore return.
type Got struct {
	V  int
	OK bool
}

var keys = rapid.SampledFrom([]string{"a", "b"})

// Spec declares the cache for lin.Check, made by newCache (NewRacy or
// New), with a map as its sequential model (copied before a change: the
// checker steps one state along several orders).
func Spec(newCache func() *Cache) lin.Spec[*Cache, map[string]int] {
	kv := rapid.Custom(func(r *rapid.T) KV {
		return KV{keys.Draw(r, "key"), rapid.IntRange(1, 9).Draw(r, "value")}
	})
	return lin.Spec[*Cache, map[string]int]{
		New:  newCache,
		Init: func() map[string]int { return map[string]int{} },
		Ops: []lin.Operation[*Cache, map[string]int]{
			lin.Op("Load", keys,
				func(c *Cache, k string) Got { v, ok := c.Load(k); return Got{v, ok} },
				func(m map[string]int, k string) (map[string]int, Got) { v, ok := m[k]; return m, Got{v, ok} }),
			lin.Op("LoadOrStore", kv,
				func(c *Cache, a KV) Got { v, ok := c.LoadOrStore(a.K, a.V); return Got{v, ok} },
				func(m map[string]int, a KV) (map[string]int, Got) {
					if v, ok := m[a.K]; ok {
						return m, Got{v, true}
					}
					m = maps.Clone(m)
					m[a.K] = a.V
					return m, Got{a.V, false}
				}),
			lin.Op("Delete", keys,
				func(c *Cache, k string) any { c.Delete(k); return nil },
				func(m map[string]int, k string) (map[string]int, any) {
					m = maps.Clone(m)
					delete(m, k)
					return m, nil
				}),
		},
	}
}
