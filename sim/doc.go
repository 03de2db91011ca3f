// Package sim provides the concurrency primitives of a weft test: Go,
// Mutex, RWMutex, WaitGroup, Cond, Once, channels (Chan and Select), shared
// variables (Var), atomics, virtual time (Sleep, Now, timers), random
// choices (Intn) and the order of a range over a map (MapAll, MapRange).
//
// Every primitive works in three modes, chosen per call by the goroutine
// that calls it:
//
//   - Plain: outside a weft execution, a primitive behaves like its standard
//     library twin, safely from any goroutine, at close to its cost. Code can
//     keep sim types in production builds.
//   - Controlled: on a goroutine of an execution (the body of weft.Check and
//     the goroutines it starts with Go), every operation is an event of the
//     schedule controller (package sched): the goroutine pauses before it,
//     and the controller decides which goroutine runs next. Time is virtual,
//     and Intn and select draw their choices from the schedule, so an
//     execution replays exactly.
//   - Recording: on a goroutine of a recorded run (package record), the
//     goroutines run truly in parallel, as in plain mode, and every
//     operation is reported to the run's recorder, counted exactly as the
//     controller counts it, so that a replay under control can match them.
//     Memory accesses (Var, atomics) are bracketed by the recorder's
//     read and write hooks; synchronization (locks, WaitGroup, Cond, Once,
//     Map, channels, Select) goes through a monitor of the run and is
//     reported from inside it, in the order it happened. Time is real;
//     random draws and select choices are logged.
//
// Zero values are ready to use wherever the standard library's are. A value
// belongs to one execution at a time: its synchronization state (who holds a
// lock, what a channel buffers, a WaitGroup's count, whether a Once ran)
// starts afresh in each execution that uses it, from what plain mode left
// (a channel closed or a Once done outside executions, at package init, is
// so in each), while the values held by Var and the atomics are plain
// memory and persist.
//
// Semantics follow Go's: sending on a closed channel panics, closing twice
// panics, a receive from a closed channel drains the buffer and then yields
// zero values, operations on a nil channel block forever, unlocking an
// unlocked mutex panics, a negative WaitGroup counter panics. Under control,
// operations that can never proceed are reported as a deadlock (or a leak,
// if the test body has returned) with each goroutine's blocked operation.
package sim
