package sim

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// keyOrder is the order by value of a map's key type, for MapRange: numbers
// by value, false before true, strings bytewise, complex numbers by real
// then imaginary part, arrays and structs field by field (blank fields
// skipped), interfaces nil first, then by the dynamic type's name (and
// package path), then by the dynamic value. Pointers, channels and unsafe
// pointers have none: their values are addresses, which differ between
// runs.
type keyOrder struct {
	fast fastKind
	// cmp compares two keys at a and b; nil when the type has no order.
	cmp func(a, b unsafe.Pointer) int
	// check reports whether the key at p can be ordered; nil when every
	// key of the type can (its type holds no interface).
	check func(p unsafe.Pointer) bool
}

// fastKind names the key types sorted as a slice of a basic type.
type fastKind uint8

const (
	slow fastKind = iota
	fastInt8
	fastInt16
	fastInt32
	fastInt64
	fastUint8
	fastUint16
	fastUint32
	fastUint64
	fastFloat32
	fastFloat64
	fastString
)

// keyOrders caches keyOrder by reflect.Type.
var keyOrders sync.Map

// orderOf returns t's keyOrder.
func orderOf(t reflect.Type) *keyOrder {
	if o, ok := keyOrders.Load(t); ok {
		return o.(*keyOrder)
	}
	o := &keyOrder{fast: fastOf(t)}
	o.cmp, o.check = compareOf(t)
	keyOrders.Store(t, o)
	return o
}

// fastOf returns the fast kind of t, or slow.
func fastOf(t reflect.Type) fastKind {
	switch t.Kind() {
	case reflect.Bool, reflect.Uint8:
		return fastUint8
	case reflect.Int8:
		return fastInt8
	case reflect.Int16:
		return fastInt16
	case reflect.Int32:
		return fastInt32
	case reflect.Int64:
		return fastInt64
	case reflect.Int:
		return [...]fastKind{4: fastInt32, 8: fastInt64}[t.Size()]
	case reflect.Uint16:
		return fastUint16
	case reflect.Uint32:
		return fastUint32
	case reflect.Uint64:
		return fastUint64
	case reflect.Uint, reflect.Uintptr:
		return [...]fastKind{4: fastUint32, 8: fastUint64}[t.Size()]
	case reflect.Float32:
		return fastFloat32
	case reflect.Float64:
		return fastFloat64
	case reflect.String:
		return fastString
	}
	return slow
}

// sortKeys sorts keys, all equal to themselves and distinct, by their
// order by value, and reports whether they have one (if not, keys is left
// as it is).
func sortKeys[K comparable](keys []K) bool {
	o := orderOf(reflect.TypeFor[K]())
	p, n := unsafe.Pointer(unsafe.SliceData(keys)), len(keys)
	switch o.fast {
	case fastInt8:
		slices.Sort(unsafe.Slice((*int8)(p), n))
	case fastInt16:
		slices.Sort(unsafe.Slice((*int16)(p), n))
	case fastInt32:
		slices.Sort(unsafe.Slice((*int32)(p), n))
	case fastInt64:
		slices.Sort(unsafe.Slice((*int64)(p), n))
	case fastUint8:
		slices.Sort(unsafe.Slice((*uint8)(p), n))
	case fastUint16:
		slices.Sort(unsafe.Slice((*uint16)(p), n))
	case fastUint32:
		slices.Sort(unsafe.Slice((*uint32)(p), n))
	case fastUint64:
		slices.Sort(unsafe.Slice((*uint64)(p), n))
	case fastFloat32:
		slices.Sort(unsafe.Slice((*float32)(p), n))
	case fastFloat64:
		slices.Sort(unsafe.Slice((*float64)(p), n))
	case fastString:
		slices.Sort(unsafe.Slice((*string)(p), n))
	default:
		return sortSlow(keys, o)
	}
	return true
}

// sortSlow sorts keys with o's comparison, through a permutation of their
// indexes, so that the comparison reads the keys where they are.
func sortSlow[K comparable](keys []K, o *keyOrder) bool {
	if o.cmp == nil {
		return false
	}
	if o.check != nil {
		for i := range keys {
			if !o.check(unsafe.Pointer(&keys[i])) {
				return false
			}
		}
	}
	idx := make([]int32, len(keys))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(i, j int32) int {
		return o.cmp(unsafe.Pointer(&keys[i]), unsafe.Pointer(&keys[j]))
	})
	sorted := make([]K, len(keys))
	for i, j := range idx {
		sorted[i] = keys[j]
	}
	copy(keys, sorted)
	return true
}

// compareOf returns the comparison of values of type t, nil if t has no
// order by value, and the check of a value when t holds interfaces.
func compareOf(t reflect.Type) (func(a, b unsafe.Pointer) int, func(p unsafe.Pointer) bool) {
	switch t.Kind() {
	case reflect.Bool:
		return func(a, b unsafe.Pointer) int { return cmp.Compare(*(*uint8)(a), *(*uint8)(b)) }, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return signedCompare(t.Size()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return unsignedCompare(t.Size()), nil
	case reflect.Float32:
		return typedCompare[float32](), nil
	case reflect.Float64:
		return typedCompare[float64](), nil
	case reflect.String:
		return typedCompare[string](), nil
	case reflect.Complex64:
		return func(a, b unsafe.Pointer) int {
			x, y := *(*complex64)(a), *(*complex64)(b)
			return cmp.Or(cmp.Compare(real(x), real(y)), cmp.Compare(imag(x), imag(y)))
		}, nil
	case reflect.Complex128:
		return func(a, b unsafe.Pointer) int {
			x, y := *(*complex128)(a), *(*complex128)(b)
			return cmp.Or(cmp.Compare(real(x), real(y)), cmp.Compare(imag(x), imag(y)))
		}, nil
	case reflect.Array:
		return arrayCompare(t)
	case reflect.Struct:
		return structCompare(t)
	case reflect.Interface:
		return interfaceCompare(t)
	}
	return nil, nil
}

func typedCompare[T cmp.Ordered]() func(a, b unsafe.Pointer) int {
	return func(a, b unsafe.Pointer) int { return cmp.Compare(*(*T)(a), *(*T)(b)) }
}

func signedCompare(size uintptr) func(a, b unsafe.Pointer) int {
	switch size {
	case 1:
		return typedCompare[int8]()
	case 2:
		return typedCompare[int16]()
	case 4:
		return typedCompare[int32]()
	}
	return typedCompare[int64]()
}

func unsignedCompare(size uintptr) func(a, b unsafe.Pointer) int {
	switch size {
	case 1:
		return typedCompare[uint8]()
	case 2:
		return typedCompare[uint16]()
	case 4:
		return typedCompare[uint32]()
	}
	return typedCompare[uint64]()
}

// arrayCompare compares arrays element by element.
func arrayCompare(t reflect.Type) (func(a, b unsafe.Pointer) int, func(p unsafe.Pointer) bool) {
	ec, echeck := compareOf(t.Elem())
	if ec == nil {
		return nil, nil
	}
	n, size := t.Len(), t.Elem().Size()
	c := func(a, b unsafe.Pointer) int {
		for i := range n {
			off := uintptr(i) * size
			if r := ec(unsafe.Add(a, off), unsafe.Add(b, off)); r != 0 {
				return r
			}
		}
		return 0
	}
	if echeck == nil {
		return c, nil
	}
	return c, func(p unsafe.Pointer) bool {
		for i := range n {
			if !echeck(unsafe.Add(p, uintptr(i)*size)) {
				return false
			}
		}
		return true
	}
}

// field is a struct field's offset and comparison.
type field struct {
	off   uintptr
	cmp   func(a, b unsafe.Pointer) int
	check func(p unsafe.Pointer) bool
}

// structCompare compares structs field by field, blank fields skipped (==
// skips them).
func structCompare(t reflect.Type) (func(a, b unsafe.Pointer) int, func(p unsafe.Pointer) bool) {
	var fields []field
	checks := false
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Name == "_" {
			continue
		}
		c, check := compareOf(f.Type)
		if c == nil {
			return nil, nil
		}
		checks = checks || check != nil
		fields = append(fields, field{f.Offset, c, check})
	}
	c := func(a, b unsafe.Pointer) int {
		for _, f := range fields {
			if r := f.cmp(unsafe.Add(a, f.off), unsafe.Add(b, f.off)); r != 0 {
				return r
			}
		}
		return 0
	}
	if !checks {
		return c, nil
	}
	return c, func(p unsafe.Pointer) bool {
		for _, f := range fields {
			if f.check != nil && !f.check(unsafe.Add(p, f.off)) {
				return false
			}
		}
		return true
	}
}

// interfaceCompare compares interface values: nil first, then by dynamic
// type, then by value. Its check reports whether the dynamic value can be
// ordered.
func interfaceCompare(t reflect.Type) (func(a, b unsafe.Pointer) int, func(p unsafe.Pointer) bool) {
	c := func(a, b unsafe.Pointer) int {
		x, y := reflect.NewAt(t, a).Elem().Elem(), reflect.NewAt(t, b).Elem().Elem()
		switch {
		case !x.IsValid() || !y.IsValid():
			return cmp.Compare(boolInt(x.IsValid()), boolInt(y.IsValid()))
		case x.Type() != y.Type():
			tx, ty := x.Type(), y.Type()
			return cmp.Or(strings.Compare(tx.String(), ty.String()), strings.Compare(tx.PkgPath(), ty.PkgPath()))
		}
		return orderOf(x.Type()).cmp(addressOf(x), addressOf(y))
	}
	check := func(p unsafe.Pointer) bool {
		x := reflect.NewAt(t, p).Elem().Elem()
		if !x.IsValid() {
			return true
		}
		o := orderOf(x.Type())
		return o.cmp != nil && (o.check == nil || o.check(addressOf(x)))
	}
	return c, check
}

// addressOf returns the address of a copy of x.
func addressOf(x reflect.Value) unsafe.Pointer {
	p := reflect.New(x.Type())
	p.Elem().Set(x)
	return p.UnsafePointer()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
