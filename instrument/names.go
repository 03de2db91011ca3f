package instrument

// replacements maps an import path, then an exported name of that package,
// to what the rewritten code uses instead: an import name of importPaths
// and a name in that package.
var replacements = map[string]map[string][2]string{
	"sync": names(simName,
		"Mutex", "RWMutex", "WaitGroup", "Once", "Cond", "NewCond", "Map",
		"OnceFunc", "OnceValue", "OnceValues"),
	"sync/atomic": names(simName,
		"Int32", "Int64", "Uint32", "Uint64", "Uintptr", "Bool", "Pointer", "Value",
		"AddInt32", "AddInt64", "AddUint32", "AddUint64", "AddUintptr",
		"LoadInt32", "LoadInt64", "LoadUint32", "LoadUint64", "LoadUintptr", "LoadPointer",
		"StoreInt32", "StoreInt64", "StoreUint32", "StoreUint64", "StoreUintptr", "StorePointer",
		"SwapInt32", "SwapInt64", "SwapUint32", "SwapUint64", "SwapUintptr", "SwapPointer",
		"CompareAndSwapInt32", "CompareAndSwapInt64", "CompareAndSwapUint32", "CompareAndSwapUint64",
		"CompareAndSwapUintptr", "CompareAndSwapPointer",
		"AndInt32", "AndInt64", "AndUint32", "AndUint64", "AndUintptr",
		"OrInt32", "OrInt64", "OrUint32", "OrUint64", "OrUintptr"),
	"time": names(simName,
		"Sleep", "Now", "Since", "Until", "After", "AfterFunc", "NewTimer", "NewTicker", "Tick",
		"Timer", "Ticker"),
	"context": names(ctxName,
		"Context", "CancelFunc", "CancelCauseFunc", "Background", "TODO",
		"WithCancel", "WithCancelCause", "WithTimeout", "WithTimeoutCause",
		"WithDeadline", "WithDeadlineCause", "WithValue", "WithoutCancel", "Cause", "AfterFunc"),
	"math/rand": with(names(simName,
		"Int", "Int31", "Int31n", "Int63", "Int63n", "Intn", "Float32", "Float64", "Perm", "Shuffle"),
		// sim's Uint32 and Uint64 are atomic types.
		"Uint32", simName, "RandUint32", "Uint64", simName, "RandUint64"),
	"math/rand/v2": with(names(simName,
		"Int", "IntN", "Int32N", "Int64N", "Uint", "UintN", "Uint32N", "Uint64N",
		"Float32", "Float64", "Perm", "Shuffle", "N"),
		"Int32", simName, "Int31", "Int64", simName, "Int63",
		"Uint32", simName, "RandUint32", "Uint64", simName, "RandUint64"),
	"reflect":               with(map[string][2]string{}, "Select", simName, "ReflectSelect", "DeepEqual", simName, "DeepEqual"),
	"io":                    names(simName, "Pipe", "PipeReader", "PipeWriter"),
	"net":                   names(netName, "Listen", "ListenTCP", "Dial", "DialTimeout", "DialTCP"),
	"syscall":               {"Flock": {simName, "Flock"}},
	"golang.org/x/sys/unix": {"Flock": {simName, "Flock"}},
	"runtime": with(names(simName, "NumGoroutine", "Stack", "SetFinalizer", "AddCleanup", "Callers", "Caller",
		"CallersFrames", "Frames", "FuncForPC", "Func"),
		"Gosched", simName, "Yield"),
}

// stdTwins maps an import path, then an exported name of that package, to
// a function of sim with the same signature that the rewritten code calls
// instead. Unlike replacements, the rest of the rewrite sees the original:
// a function of code weft does not instrument, whose contexts stay the
// standard library's (see contextBoundary and stdctx.go).
var stdTwins = map[string]map[string][2]string{
	"runtime/pprof": with(map[string][2]string{},
		"Do", simName, "PprofDo", "SetGoroutineLabels", simName, "PprofSetGoroutineLabels"),
}

// with adds renamed entries to m: name, import, new name, ...
func with(m map[string][2]string, renames ...string) map[string][2]string {
	for i := 0; i+2 < len(renames); i += 3 {
		m[renames[i]] = [2]string{renames[i+1], renames[i+2]}
	}
	return m
}

func names(imp string, ns ...string) map[string][2]string {
	m := make(map[string][2]string, len(ns))
	for _, n := range ns {
		m[n] = [2]string{imp, n}
	}
	return m
}

// weftTypes are the types of the standard library whose values become
// weft's, with the fields and methods that return channels: a channel read
// from them is one of weft's.
var weftTypes = map[string]bool{
	"time.Timer":      true,
	"time.Ticker":     true,
	"context.Context": true,
}

// weftFuncs are the functions of the standard library whose channel
// results become weft's.
var weftFuncs = map[string]bool{
	"time.After": true,
	"time.Tick":  true,
}
