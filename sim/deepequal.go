package sim

import (
	"bytes"
	"reflect"
	"unsafe"
)

// DeepEqual is reflect.DeepEqual, but for the state weft keeps in its
// primitives under control: two of sim's twins of sync's and sync/atomic's
// types (a Mutex, an atomic Int32) are deeply equal when their plain parts
// are, as the types of sync and sync/atomic they stand for would be. The
// state an execution gave one of them (its st field: the execution, the
// object's id) is left out: an atomic Int32 used in the execution and one
// not yet used, equal in value, are equal (go.uber.org/zap's
// TestParseAtomicLevel compares two zap.AtomicLevel with testify's
// assert.Equal).
func DeepEqual(x, y any) bool {
	if x == nil || y == nil {
		return x == y
	}
	v1, v2 := reflect.ValueOf(x), reflect.ValueOf(y)
	if v1.Type() != v2.Type() {
		return false
	}
	return deepValueEqual(v1, v2, map[deepVisit]bool{})
}

// A deepVisit is a comparison under way, to stop at cycles (reflect's).
type deepVisit struct {
	a1, a2 unsafe.Pointer
	n      int
	typ    reflect.Type
}

// simPath is the import path of package sim.
var simPath = reflect.TypeFor[Mutex]().PkgPath()

// deepValueEqual is reflect's deepValueEqual, which it follows case by
// case, with sim's types' controlled state left out.
func deepValueEqual(v1, v2 reflect.Value, visited map[deepVisit]bool) bool {
	if !v1.IsValid() || !v2.IsValid() {
		return v1.IsValid() == v2.IsValid()
	}
	if v1.Type() != v2.Type() {
		return false
	}
	if seen(v1, v2, visited) {
		return true
	}
	switch v1.Kind() {
	case reflect.Array:
		return elemsEqual(v1, v2, visited)
	case reflect.Slice:
		if v1.IsNil() != v2.IsNil() || v1.Len() != v2.Len() {
			return false
		}
		if v1.UnsafePointer() == v2.UnsafePointer() {
			return true
		}
		if v1.Type().Elem().Kind() == reflect.Uint8 {
			return bytes.Equal(v1.Bytes(), v2.Bytes())
		}
		return elemsEqual(v1, v2, visited)
	case reflect.Interface:
		if v1.IsNil() || v2.IsNil() {
			return v1.IsNil() == v2.IsNil()
		}
		return deepValueEqual(v1.Elem(), v2.Elem(), visited)
	case reflect.Pointer:
		if v1.UnsafePointer() == v2.UnsafePointer() {
			return true
		}
		return deepValueEqual(v1.Elem(), v2.Elem(), visited)
	case reflect.Struct:
		return fieldsEqual(v1, v2, visited)
	case reflect.Map:
		return mapsEqual(v1, v2, visited)
	case reflect.Func:
		return v1.IsNil() && v2.IsNil()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v1.Int() == v2.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v1.Uint() == v2.Uint()
	case reflect.String:
		return v1.String() == v2.String()
	case reflect.Bool:
		return v1.Bool() == v2.Bool()
	case reflect.Float32, reflect.Float64:
		return v1.Float() == v2.Float()
	case reflect.Complex64, reflect.Complex128:
		return v1.Complex() == v2.Complex()
	default: // Chan, UnsafePointer
		return v1.Pointer() == v2.Pointer()
	}
}

// seen reports whether v1 and v2, references, are being compared already
// (a cycle), and notes them as being compared.
func seen(v1, v2 reflect.Value, visited map[deepVisit]bool) bool {
	switch v1.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice:
		if v1.IsNil() || v2.IsNil() {
			return false
		}
	default:
		return false
	}
	a1, a2 := v1.UnsafePointer(), v2.UnsafePointer()
	if uintptr(a1) > uintptr(a2) {
		a1, a2 = a2, a1
	}
	n := 0
	if v1.Kind() == reflect.Slice {
		n = v1.Len()
	}
	v := deepVisit{a1, a2, n, v1.Type()}
	if visited[v] {
		return true
	}
	visited[v] = true
	return false
}

// elemsEqual compares the elements of two arrays or slices of one length.
func elemsEqual(v1, v2 reflect.Value, visited map[deepVisit]bool) bool {
	for i := 0; i < v1.Len(); i++ {
		if !deepValueEqual(v1.Index(i), v2.Index(i), visited) {
			return false
		}
	}
	return true
}

// fieldsEqual compares two structs field by field, but for the controlled
// state (st) of sim's types.
func fieldsEqual(v1, v2 reflect.Value, visited map[deepVisit]bool) bool {
	t := v1.Type()
	own := t.PkgPath() == simPath
	for i, n := 0, v1.NumField(); i < n; i++ {
		if own && t.Field(i).Name == "st" {
			continue
		}
		if !deepValueEqual(v1.Field(i), v2.Field(i), visited) {
			return false
		}
	}
	return true
}

// mapsEqual compares two maps.
func mapsEqual(v1, v2 reflect.Value, visited map[deepVisit]bool) bool {
	if v1.IsNil() != v2.IsNil() || v1.Len() != v2.Len() {
		return false
	}
	if v1.UnsafePointer() == v2.UnsafePointer() {
		return true
	}
	// A map read from an unexported field cannot be indexed by reflect
	// (its values are read-only): take it as exported.
	m1, m2 := exported(v1), exported(v2)
	iter := m1.MapRange()
	for iter.Next() {
		val1 := iter.Value()
		val2 := m2.MapIndex(iter.Key())
		if !val1.IsValid() || !val2.IsValid() || !deepValueEqual(val1, val2, visited) {
			return false
		}
	}
	return true
}

// flagRO are reflect.Value's flags of a value read through an unexported
// field (flagStickyRO, flagEmbedRO), as go-spew clears them.
const flagRO = 1<<5 | 1<<6

// flagOffset is the offset of reflect.Value's flag field.
var flagOffset = func() uintptr {
	f, ok := reflect.TypeFor[reflect.Value]().FieldByName("flag")
	if !ok {
		panic("sim: reflect.Value has no flag field")
	}
	return f.Offset
}()

// exported returns v as if it had not been read through an unexported
// field, so that reflect lets it be indexed (DeepEqual only reads it).
func exported(v reflect.Value) reflect.Value {
	flag := (*uintptr)(unsafe.Add(unsafe.Pointer(&v), flagOffset))
	*flag &^= flagRO
	return v
}
