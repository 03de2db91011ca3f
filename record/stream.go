package record

import "encoding/binary"

// Tags of the entries every recorded thread stream may hold; recorders use
// tags from TagFirst on.
const (
	// TagTouch: the operation N touched a location (a replay maps the
	// controller's objects to the log's locations by it): Args[0], or,
	// for runs of consecutive locations, coded against the goroutine's
	// previous touches (see Thread.touch; replay decodes them).
	TagTouch uint8 = 1
	// TagChoice: the operation N chose value Args[0] (Intn, select).
	TagChoice uint8 = 2
	// TagNoAccess: the operation N touched no location after all (a
	// TryLock that failed).
	TagNoAccess uint8 = 3
	// TagFirst is the first tag a recorder may use; tags go up to 31.
	TagFirst uint8 = 8
)

const flushSize = 32 << 10

// A Stream is one stream of a log: entries appended in order and flushed to
// the log file in chunks of about 32 KiB, so that a run's log is never held
// in memory. An entry is a tag, the counter of an operation (thread streams
// only, delta-encoded) and up to seven unsigned arguments, all varints.
type Stream struct {
	run   *Session
	kind  byte // chunkThread or chunkLoc
	id    uint32
	buf   []byte
	lastN uint64
	bytes int64
}

// Put appends an entry to the stream. In a location stream n is ignored.
func (s *Stream) Put(tag uint8, n uint64, args ...uint64) {
	if len(args) > 7 || tag >= 32 {
		panic("record: entry with more than 7 arguments or tag above 31")
	}
	if s.buf == nil {
		s.buf = make([]byte, 0, 256)
	}
	s.buf = append(s.buf, tag<<3|uint8(len(args)))
	if s.kind == chunkThread {
		d := int64(n - s.lastN)
		s.buf = binary.AppendVarint(s.buf, d)
		s.lastN = n
	}
	for _, a := range args {
		s.buf = binary.AppendUvarint(s.buf, a)
	}
	if len(s.buf) >= flushSize {
		s.Flush()
	}
}

// Pending returns how many bytes of entries the stream holds that are not
// written to the log file yet.
func (s *Stream) Pending() int { return len(s.buf) }

// Flush writes the stream's pending entries to the log file.
func (s *Stream) Flush() {
	if len(s.buf) == 0 || s.run == nil {
		return
	}
	s.bytes += int64(len(s.buf))
	s.run.writeChunk(s.kind, s.id, s.buf)
	s.buf = s.buf[:0]
}

// An Entry is one decoded entry of a stream.
type Entry struct {
	Tag  uint8
	N    uint64 // the operation's counter (thread streams)
	Args []uint64
}
