package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"

	"github.com/weftdev/weft/sched"
)

// A Log is a recorded run's log, decoded.
type Log struct {
	// Algorithm names the recorder that wrote the log.
	Algorithm string
	// Name is the test's name.
	Name string
	// Threads are the run's goroutines, by index.
	Threads []ThreadLog
	// Locs holds each location's stream, by location number (Locs[0] is
	// unused: locations are numbered from 1).
	Locs [][]Entry
	// Complete reports that the run ended (it was not abandoned).
	Complete bool
}

// A ThreadLog is one goroutine's part of a log.
type ThreadLog struct {
	// ID is the goroutine's lineage.
	ID string
	// Ops counts its operations.
	Ops uint64
	// Reads digests the values it read.
	Reads sched.Digest
	// Entries is its stream.
	Entries []Entry
}

// ReadFile reads and decodes the log at path.
func ReadFile(path string) (*Log, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	l, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// errTruncated is reported for a log that ends early.
var errTruncated = errors.New("truncated")

// Parse decodes a log. A log that is truncated, corrupt or of another
// version is rejected with an error saying which and where.
func Parse(data []byte) (*Log, error) {
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		return nil, fmt.Errorf("not a weft log (want first line %q)", magic[:len(magic)-1])
	}
	if len(data) < len(magic)+4 {
		return nil, fmt.Errorf("log truncated after its header")
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	d := &decoder{data: body, off: len(magic)}
	l := &Log{}
	l.Algorithm = d.string()
	l.Name = d.string()
	threads := map[uint64][]byte{}
	locs := map[uint64][]byte{}
	for d.err == nil {
		kind := d.byte()
		if kind == chunkEnd || d.err != nil {
			break
		}
		id := d.uvarint()
		n := d.uvarint()
		chunk := d.bytes(n)
		switch kind {
		case chunkThread:
			threads[id] = append(threads[id], chunk...)
		case chunkLoc:
			locs[id] = append(locs[id], chunk...)
		default:
			d.fail(fmt.Errorf("unknown chunk kind %d", kind))
		}
	}
	nt := d.uvarint()
	if d.err == nil && nt > uint64(len(body)) {
		d.fail(fmt.Errorf("%d goroutines", nt))
	}
	for i := uint64(0); i < nt && d.err == nil; i++ {
		t := ThreadLog{ID: d.string(), Ops: d.uvarint()}
		t.Reads.Reads = d.uvarint()
		t.Reads.Hash = d.uint64()
		l.Threads = append(l.Threads, t)
	}
	nl := d.uvarint()
	if d.err == nil && nl > uint64(len(body)) {
		d.fail(fmt.Errorf("%d locations", nl))
	}
	l.Complete = d.byte() == 1
	if d.err != nil {
		if errors.Is(d.err, errTruncated) {
			return nil, fmt.Errorf("log truncated at byte %d", d.off)
		}
		return nil, fmt.Errorf("corrupt log at byte %d: %w", d.off, d.err)
	}
	if d.off != len(body) {
		return nil, fmt.Errorf("corrupt log: %d stray bytes at byte %d", len(body)-d.off, d.off)
	}
	if crc32.ChecksumIEEE(body) != sum {
		return nil, fmt.Errorf("corrupt log: checksum mismatch")
	}
	if err := l.decodeStreams(threads, locs, nl); err != nil {
		return nil, err
	}
	return l, nil
}

// decodeStreams decodes the goroutines' streams (threads, by index) and the
// locations' (locs, by number, of nl) into l.
func (l *Log) decodeStreams(threads, locs map[uint64][]byte, nl uint64) error {
	for id, data := range threads {
		if id >= uint64(len(l.Threads)) {
			return fmt.Errorf("corrupt log: stream of goroutine %d, of %d", id, len(l.Threads))
		}
		es, err := decodeEntries(data, true)
		if err != nil {
			return fmt.Errorf("corrupt log: goroutine %s: %w", l.Threads[id].ID, err)
		}
		l.Threads[id].Entries = es
	}
	l.Locs = make([][]Entry, nl+1)
	for id, data := range locs {
		if id == 0 || id > nl {
			return fmt.Errorf("corrupt log: stream of location %d, of %d", id, nl)
		}
		es, err := decodeEntries(data, false)
		if err != nil {
			return fmt.Errorf("corrupt log: location %d: %w", id, err)
		}
		l.Locs[id] = es
	}
	return nil
}

func decodeEntries(data []byte, thread bool) ([]Entry, error) {
	d := &decoder{data: data}
	var es []Entry
	var n uint64
	for d.off < len(data) && d.err == nil {
		h := d.byte()
		e := Entry{Tag: h >> 3}
		if thread {
			n += uint64(d.varint())
			e.N = n
		}
		if k := int(h & 7); k > 0 {
			e.Args = make([]uint64, k)
			for i := range e.Args {
				e.Args[i] = d.uvarint()
			}
		}
		es = append(es, e)
	}
	if d.err != nil {
		return nil, fmt.Errorf("entry %d: %w", len(es), d.err)
	}
	return es, nil
}

type decoder struct {
	data []byte
	off  int
	err  error
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *decoder) byte() byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.data) {
		d.fail(errTruncated)
		return 0
	}
	b := d.data[d.off]
	d.off++
	return b
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.data[d.off:])
	if n <= 0 {
		if n == 0 {
			d.fail(errTruncated)
		} else {
			d.fail(errors.New("varint overflows 64 bits"))
		}
		return 0
	}
	d.off += n
	return v
}

// varint decodes a zigzag varint: binary.Varint's encoding is the
// uvarint of the zigzagged value.
func (d *decoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *decoder) uint64() uint64 {
	b := d.bytes(8)
	if b == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(b)
}

func (d *decoder) bytes(n uint64) []byte {
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.data)-d.off) {
		d.fail(errTruncated)
		return nil
	}
	b := d.data[d.off : d.off+int(n)]
	d.off += int(n)
	return b
}

func (d *decoder) string() string {
	n := d.uvarint()
	return string(d.bytes(n))
}
