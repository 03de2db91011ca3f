package timeline

import (
	"slices"
	"strconv"
	"strings"
)

// The links between goroutines are read off the trace, by the objects the
// operations name: an unlock and the next lock of the same mutex by another
// goroutine, the k-th send on a channel and its k-th receive, a WaitGroup's
// last Done and the Wait it released, a Cond's Signal and the Wait it woke,
// a go statement and the goroutine it started. Where the trace cannot tell
// (a select names no single channel), nothing is drawn rather than a guess.

// An operation is the events of one goroutine's operation: its first, its
// last (after waiting in it, a goroutine reaches it again), and the
// position after which the goroutine went on past it.
type operation struct {
	first, last int
	done        int // -1: never (stuck for good)
	lane        int
	op          string
	obj         uint32
}

// operations groups the trace's events into operations, in order of their
// first events.
func (x *execution) operations() []operation {
	var ops []operation
	open := make([]int, len(x.names)) // by lane: its last operation, +1
	for i, e := range x.events {
		l := x.lane[i]
		if k := open[l] - 1; k >= 0 && x.events[ops[k].last].Ops == e.Ops {
			ops[k].last = i
			continue
		}
		ops = append(ops, operation{first: i, last: i, lane: l, op: e.Op, obj: e.Obj})
		open[l] = len(ops)
	}
	for k := range ops {
		ops[k].done = x.done(ops[k].last)
	}
	return ops
}

// done returns the position after which the goroutine of event i went on
// past it, or -1 if it never did. A goroutine's last event is followed by
// no event of its own to tell: if it began an operation, the goroutine is
// taken to have gone on at once, to its end; if it continued one it had
// waited in, it went on once the goroutines it waited for let it, at a time
// the trace does not show: done counts it after every event.
func (x *execution) done(i int) int {
	switch {
	case x.continues(i) || i == len(x.events)-1:
		return i
	case x.next[i] >= 0:
		return x.next[i] - 1
	}
	if _, stuck := x.stuck[x.events[i].G]; stuck {
		return -1
	}
	if x.continuation(i, x.prev[i]) {
		return len(x.events)
	}
	return i
}

// links returns the synchronization between goroutines the trace shows.
func (x *execution) links(boxes []Box) []Link {
	ops := x.operations()
	link := func(from, to operation, kind, note string) Link {
		return Link{From: x.box[from.first], To: x.box[to.first], Kind: kind, At: to.done, Note: note}
	}
	var out []Link
	out = append(out, x.lockLinks(ops, link)...)
	out = append(out, x.chanLinks(ops, link)...)
	out = append(out, x.waitLinks(ops, link)...)
	out = append(out, x.goLinks(ops, link)...)
	return out
}

type linker func(from, to operation, kind, note string) Link

// releases are the operations that may release others, by completion.
type releases []operation

// newReleases keeps the completed operations of group whose names keep
// accepts, in the order they completed.
func newReleases(group []operation, keep func(string) bool) releases {
	var rs releases
	for _, o := range group {
		if o.done >= 0 && keep(o.op) {
			rs = append(rs, o)
		}
	}
	slices.SortStableFunc(rs, func(a, b operation) int { return a.done - b.done })
	return rs
}

// latest returns the release of another goroutine than to's that completed
// last before to did (and, if after is set, after to began), looking back
// over at most 64 of them.
func (rs releases) latest(to operation, after bool) (operation, bool) {
	if to.done < 0 {
		return operation{}, false // it never went on
	}
	end, _ := slices.BinarySearchFunc(rs, to.done+1, func(o operation, done int) int { return o.done - done })
	for i := end - 1; i >= 0 && i >= end-64; i-- {
		o := rs[i]
		if after && o.done < to.first {
			break
		}
		if o.lane != to.lane && before(o, to) {
			return o, true
		}
	}
	return operation{}, false
}

// before reports whether operation a completed before b. Two that went on
// after the same event: the goroutine of that event went on first, and the
// other was resumed after it.
func before(a, b operation) bool {
	if a.done != b.done {
		return a.done < b.done
	}
	return a.last == a.done && b.last != b.done
}

// lockLinks: an unlock and the next lock of the mutex by another
// goroutine (readers are not ordered with each other).
func (x *execution) lockLinks(ops []operation, link linker) []Link {
	var out []Link
	byObj := groupByObj(ops, func(op string) bool {
		return strings.HasPrefix(op, "Mutex.") || strings.HasPrefix(op, "RWMutex.")
	})
	for _, group := range byObj {
		unlocks := newReleases(group, func(op string) bool { return strings.HasSuffix(op, ".Unlock") })
		unlocksAll := newReleases(group, func(op string) bool { return strings.HasSuffix(op, ".Unlock") || op == "RWMutex.RUnlock" })
		for _, o := range group {
			read := o.op == "RWMutex.RLock"
			if o.op != "Mutex.Lock" && o.op != "RWMutex.Lock" && !read || o.done < 0 {
				continue
			}
			rs := unlocks
			if !read {
				rs = unlocksAll
			}
			if r, ok := rs.latest(o, false); ok {
				out = append(out, link(r, o, "lock", r.op+" → "+o.op))
			}
		}
	}
	return out
}

// chanLinks pairs the k-th send on each channel with its k-th receive, in
// the order they completed. A select names no single channel: in an
// execution with one, no channel is linked.
func (x *execution) chanLinks(ops []operation, link linker) []Link {
	for _, o := range ops {
		if o.op == "Select" {
			return nil
		}
	}
	var out []Link
	for _, group := range groupByObj(ops, func(op string) bool { return op == "Chan.Send" || op == "Chan.Recv" }) {
		var sends, recvs []operation
		for _, o := range group {
			if o.done < 0 {
				continue
			}
			if o.op == "Chan.Send" {
				sends = append(sends, o)
			} else {
				recvs = append(recvs, o)
			}
		}
		slices.SortStableFunc(sends, byDone)
		slices.SortStableFunc(recvs, byDone)
		for k := range min(len(sends), len(recvs)) {
			if sends[k].lane != recvs[k].lane {
				out = append(out, link(sends[k], recvs[k], "chan", "send → receive"))
			}
		}
	}
	return out
}

// waitLinks: a WaitGroup's last Done (or Add) before a Wait returned, and a
// Cond's Signal or Broadcast that came while a Wait waited.
func (x *execution) waitLinks(ops []operation, link linker) []Link {
	var out []Link
	for _, group := range groupByObj(ops, func(op string) bool {
		return strings.HasPrefix(op, "WaitGroup.") || strings.HasPrefix(op, "Cond.")
	}) {
		dones := newReleases(group, func(op string) bool { return op == "WaitGroup.Done" || op == "WaitGroup.Add" })
		signals := newReleases(group, func(op string) bool { return op == "Cond.Signal" || op == "Cond.Broadcast" })
		for _, o := range group {
			switch o.op {
			case "WaitGroup.Wait":
				if r, ok := dones.latest(o, false); ok {
					out = append(out, link(r, o, "wait", r.op+" → Wait"))
				}
			case "Cond.Wait":
				if r, ok := signals.latest(o, true); ok {
					out = append(out, link(r, o, "wait", r.op+" → Wait"))
				}
			}
		}
	}
	return out
}

// goLinks joins each go statement to the goroutine it started. A goroutine
// is named after its parent and its rank among the parent's children; a
// timer's goroutine (AfterFunc) is a child too, started without a go
// statement, so a parent's go statements are matched with its children
// only where their numbers agree.
func (x *execution) goLinks(ops []operation, link linker) []Link {
	goes := map[string][]operation{} // by parent
	firsts := map[string]operation{} // by goroutine: its first operation
	for _, o := range ops {
		name := x.names[o.lane]
		if o.op == "go" {
			goes[name] = append(goes[name], o)
		}
		if _, seen := firsts[name]; !seen {
			firsts[name] = o
		}
	}
	var out []Link
	for _, parent := range x.names {
		gs := goes[parent]
		if len(gs) == 0 {
			continue
		}
		children := 0
		for _, name := range x.names {
			if p, n, ok := cutChild(name); ok && p == parent {
				children = max(children, n)
			}
		}
		if children != len(gs) {
			continue
		}
		for k, g := range gs {
			if first, ok := firsts[parent+"."+strconv.Itoa(k+1)]; ok {
				l := link(g, first, "go", "go statement → the goroutine's start")
				l.At = first.first
				out = append(out, l)
			}
		}
	}
	return out
}

// cutChild splits a lineage into its parent's and its rank.
func cutChild(name string) (parent string, n int, ok bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "", 0, false
	}
	n, err := strconv.Atoi(name[i+1:])
	return name[:i], n, err == nil
}

// groupByObj returns the operations on objects whose names keep accepts,
// by object, in order of first appearance.
func groupByObj(ops []operation, keep func(string) bool) [][]operation {
	index := map[uint32]int{}
	var groups [][]operation
	for _, o := range ops {
		if o.obj == 0 || !keep(o.op) {
			continue
		}
		k, ok := index[o.obj]
		if !ok {
			k = len(groups)
			index[o.obj] = k
			groups = append(groups, nil)
		}
		groups[k] = append(groups[k], o)
	}
	return groups
}

func byDone(a, b operation) int { return a.done - b.done }
