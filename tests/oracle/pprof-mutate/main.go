// Command pprof-mutate writes damaged variants of pprof files for the
// differential test of read_pprof() against Go's parser
// (tests/testthat/test-oracle-pprof.R, tests/oracle/pprof-dump).
//
// Build (standard library only): go build -o pprof-mutate .
//
//	pprof-mutate -seed S -from I -to J -out DIR FILE...
//
// writes cases I..J-1 (case numbers are global, so a run can be split into
// batches) into DIR as NNNNNNN.pb, and prints one line per case:
//
//	<case file>\t<seed file>\t<kind>\t<detail>
//
// Each case is a function of (S, case number, the seed files) only: its own
// random generator, seeded with both, picks a seed file (case number modulo
// their count, so each file is used as often), a kind (by the weights in
// kinds) and the details. The seed files are inflated first (gzip or plain);
// mutations act on the protobuf message, and about one case in twenty is
// gzip-compressed afterwards (kind suffix "+gzip"). Kinds "gzip-*" damage a
// gzip stream instead.
//
// Kinds:
//   - byte level: bitflip, overwrite, truncate, splice (a prefix of one file
//     and a suffix of another), insert, delete;
//   - protobuf aware, on the message decoded as a tree of fields (nested
//     messages known by profile.proto's schema): varint (rewrite a number by
//     its role: an element's id, a reference to an id, a string index or a
//     plain number, with edge values: 0, missing, duplicate, -1, 2^31, 2^63,
//     ...), drop (remove a field), dup (repeat a field), string (change a
//     string table entry: empty, invalid UTF-8, NUL, control characters),
//     string0 (string_table[0] made non-empty, removed, or a string put
//     before it), wiretype (a field re-encoded with another wire type),
//     unknown (an unknown field: number 0, 15, 16, huge, group wire types),
//     packing (packed repeated numbers unpacked, or the reverse, or a number
//     added or removed), overlong (a varint written with redundant bytes, up
//     to 10, or an over-full 10th byte), length (a length prefix changed:
//     +-1, huge, "negative"), nolines (a location's lines removed), labels (a
//     label's str/num/num_unit set in odd combinations);
//   - gzip-truncate, gzip-bitflip, gzip-trailing (bytes after the stream),
//     gzip-concat (two members).
package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
)

type kind struct {
	name   string
	weight int
	apply  func(c *mutation) (string, error)
}

var kinds = []kind{
	{"bitflip", 8, bitflip},
	{"overwrite", 6, overwrite},
	{"truncate", 5, truncate},
	{"splice", 4, splice},
	{"insert", 3, insertBytes},
	{"delete", 3, deleteBytes},
	{"varint", 20, rewriteVarint},
	{"drop", 6, dropField},
	{"dup", 6, dupField},
	{"string", 4, changeString},
	{"string0", 3, changeString0},
	{"wiretype", 4, changeWireType},
	{"unknown", 4, addUnknownField},
	{"packing", 4, changePacking},
	{"overlong", 3, overlongVarint},
	{"length", 4, changeLength},
	{"nolines", 2, dropLines},
	{"labels", 3, changeLabel},
	{"gzip-truncate", 1, gzipTruncate},
	{"gzip-bitflip", 1, gzipBitflip},
	{"gzip-trailing", 1, gzipTrailing},
	{"gzip-concat", 1, gzipConcat},
}

type seedFile struct {
	name string
	data []byte // inflated protobuf message
	gz   []byte // gzip-compressed
}

// mutation is one case being made.
type mutation struct {
	rng   *rand.Rand
	seed  *seedFile
	seeds []*seedFile
	data  []byte // the case's bytes, set by the kind
	gzip  bool   // set by gzip kinds: data is gzip already
}

func main() {
	seed := flag.Int64("seed", 1, "random seed")
	from := flag.Int("from", 0, "first case number")
	to := flag.Int("to", 100, "case number after the last")
	out := flag.String("out", "", "output directory")
	flag.Parse()
	if *out == "" || flag.NArg() == 0 || *from < 0 || *to < *from {
		fmt.Fprintln(os.Stderr, "usage: pprof-mutate -seed S -from I -to J -out DIR FILE...")
		os.Exit(2)
	}
	seeds, err := readSeeds(flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "pprof-mutate:", err)
		os.Exit(2)
	}
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	for i := *from; i < *to; i++ {
		rng := rand.New(rand.NewSource(*seed*1_000_003 + int64(i)))
		c := &mutation{rng: rng, seed: seeds[i%len(seeds)], seeds: seeds}
		pick := rng.Intn(total)
		var k kind
		for _, k = range kinds {
			if pick < k.weight {
				break
			}
			pick -= k.weight
		}
		name := k.name
		detail, err := k.apply(c)
		if err != nil {
			// A kind that does not apply to this seed (no such field): the
			// case is a plain bit flip instead, so every case number exists.
			name = "bitflip"
			detail, _ = bitflip(c)
		}
		if !c.gzip && rng.Intn(20) == 0 {
			c.data = gzipped(c.data)
			name += "+gzip"
		}
		file := filepath.Join(*out, fmt.Sprintf("%07d.pb", i))
		if err := os.WriteFile(file, c.data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "pprof-mutate:", err)
			os.Exit(2)
		}
		fmt.Printf("%s\t%s\t%s\t%s\n", file, c.seed.name, name, detail)
	}
}

func readSeeds(paths []string) ([]*seedFile, error) {
	sort.Strings(paths)
	var seeds []*seedFile
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		s := &seedFile{name: filepath.Base(p), data: raw}
		if len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
			r, err := gzip.NewReader(bytes.NewReader(raw))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p, err)
			}
			if s.data, err = io.ReadAll(r); err != nil {
				return nil, fmt.Errorf("%s: %v", p, err)
			}
			s.gz = raw
		} else {
			s.gz = gzipped(raw)
		}
		if _, err := parseMessage(s.data, msgProfile); err != nil {
			return nil, fmt.Errorf("%s: not a protobuf message the mutator can decode: %v", p, err)
		}
		seeds = append(seeds, s)
	}
	return seeds, nil
}

func gzipped(data []byte) []byte {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

// ---- byte-level kinds

func bitflip(c *mutation) (string, error) {
	c.data = clone(c.seed.data)
	n := 1 + c.rng.Intn(8)
	for k := 0; k < n; k++ {
		i := c.rng.Intn(len(c.data))
		c.data[i] ^= 1 << uint(c.rng.Intn(8))
	}
	return fmt.Sprintf("%d bits", n), nil
}

var specialBytes = []byte{0x00, 0x01, 0x02, 0x7f, 0x80, 0xff, 0x08, 0x0a, 0x12, 0x1a, 0x22, 0x32}

func randomByte(rng *rand.Rand) byte {
	if rng.Intn(2) == 0 {
		return specialBytes[rng.Intn(len(specialBytes))]
	}
	return byte(rng.Intn(256))
}

func overwrite(c *mutation) (string, error) {
	c.data = clone(c.seed.data)
	n := 1 + c.rng.Intn(4)
	at := c.rng.Intn(len(c.data))
	for k := 0; k < n && at+k < len(c.data); k++ {
		c.data[at+k] = randomByte(c.rng)
	}
	return fmt.Sprintf("%d bytes at %d", n, at), nil
}

func truncate(c *mutation) (string, error) {
	at := c.rng.Intn(len(c.seed.data))
	c.data = clone(c.seed.data[:at])
	return fmt.Sprintf("at %d of %d", at, len(c.seed.data)), nil
}

func splice(c *mutation) (string, error) {
	other := c.seeds[c.rng.Intn(len(c.seeds))]
	a, b := c.rng.Intn(len(c.seed.data)+1), c.rng.Intn(len(other.data)+1)
	c.data = append(clone(c.seed.data[:a]), other.data[b:]...)
	return fmt.Sprintf("%d bytes + %s from %d", a, other.name, b), nil
}

func insertBytes(c *mutation) (string, error) {
	n := 1 + c.rng.Intn(16)
	at := c.rng.Intn(len(c.seed.data) + 1)
	extra := make([]byte, n)
	for k := range extra {
		extra[k] = randomByte(c.rng)
	}
	c.data = append(append(clone(c.seed.data[:at]), extra...), c.seed.data[at:]...)
	return fmt.Sprintf("%d bytes at %d", n, at), nil
}

func deleteBytes(c *mutation) (string, error) {
	at := c.rng.Intn(len(c.seed.data))
	n := 1 + c.rng.Intn(16)
	end := at + n
	if end > len(c.seed.data) {
		end = len(c.seed.data)
	}
	c.data = append(clone(c.seed.data[:at]), c.seed.data[end:]...)
	return fmt.Sprintf("%d bytes at %d", end-at, at), nil
}

// ---- gzip kinds

func gzipTruncate(c *mutation) (string, error) {
	at := c.rng.Intn(len(c.seed.gz))
	c.data, c.gzip = clone(c.seed.gz[:at]), true
	return fmt.Sprintf("at %d of %d", at, len(c.seed.gz)), nil
}

func gzipBitflip(c *mutation) (string, error) {
	c.data, c.gzip = clone(c.seed.gz), true
	// Not in the magic bytes: those would make it a plain (non-gzip) case.
	at := 2 + c.rng.Intn(len(c.data)-2)
	c.data[at] ^= 1 << uint(c.rng.Intn(8))
	return fmt.Sprintf("byte %d", at), nil
}

func gzipTrailing(c *mutation) (string, error) {
	c.data, c.gzip = clone(c.seed.gz), true
	n := 1 + c.rng.Intn(8)
	for k := 0; k < n; k++ {
		c.data = append(c.data, randomByte(c.rng))
	}
	return fmt.Sprintf("%d bytes", n), nil
}

func gzipConcat(c *mutation) (string, error) {
	// The message split in two gzip members: one stream to a reader that
	// reads every member, as Go's does.
	at := c.rng.Intn(len(c.seed.data) + 1)
	c.data = append(gzipped(c.seed.data[:at]), gzipped(c.seed.data[at:])...)
	c.gzip = true
	return fmt.Sprintf("members split at %d", at), nil
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

// ---- the message as a tree

type msgType int

const (
	msgNone msgType = iota
	msgProfile
	msgValueType
	msgSample
	msgLabel
	msgMapping
	msgLocation
	msgLine
	msgFunction
)

// nested: the message type of a length-delimited field, if it is one.
func nested(m msgType, num uint64) msgType {
	switch m {
	case msgProfile:
		switch num {
		case 1, 11:
			return msgValueType
		case 2:
			return msgSample
		case 3:
			return msgMapping
		case 4:
			return msgLocation
		case 5:
			return msgFunction
		}
	case msgSample:
		if num == 3 {
			return msgLabel
		}
	case msgLocation:
		if num == 4 {
			return msgLine
		}
	}
	return msgNone
}

// role of a number field.
type role int

const (
	roleNumber role = iota
	roleID          // an element's own id
	roleRef         // a reference to an id
	roleString      // a string table index
)

func roleOf(m msgType, num uint64) role {
	switch m {
	case msgProfile:
		switch num {
		case 7, 8, 13, 14, 15:
			return roleString
		}
	case msgValueType:
		return roleString
	case msgSample:
		if num == 1 {
			return roleRef
		}
	case msgLabel:
		switch num {
		case 1, 2, 4:
			return roleString
		}
	case msgMapping:
		switch num {
		case 1:
			return roleID
		case 5, 6:
			return roleString
		}
	case msgLocation:
		switch num {
		case 1:
			return roleID
		case 2:
			return roleRef
		}
	case msgLine:
		if num == 1 {
			return roleRef
		}
	case msgFunction:
		switch num {
		case 1:
			return roleID
		case 2, 3, 4:
			return roleString
		}
	}
	return roleNumber
}

// packedField: repeated numbers that may be packed.
func packedField(m msgType, num uint64) bool {
	return (m == msgSample && (num == 1 || num == 2)) || (m == msgProfile && num == 13)
}

type field struct {
	num, typ uint64
	v        uint64   // varint or fixed value
	data     []byte   // length-delimited content when not parsed
	kids     []*field // nested message
	msg      msgType  // type of kids' message
	keyPad   int      // extra bytes in the key's varint
	valuePad int      // extra bytes in the value's (or length's) varint
	length   *uint64  // a length prefix that differs from the content's
	overfull byte     // non-zero: the varint value written in 10 bytes, this the last
}

func parseMessage(data []byte, m msgType) ([]*field, error) {
	var out []*field
	for len(data) > 0 {
		key, n := readVarint(data)
		if n == 0 {
			return nil, errors.New("bad key")
		}
		data = data[n:]
		f := &field{num: key >> 3, typ: key & 7}
		switch f.typ {
		case 0:
			v, n := readVarint(data)
			if n == 0 {
				return nil, errors.New("bad varint")
			}
			f.v, data = v, data[n:]
		case 1, 5:
			size := 8
			if f.typ == 5 {
				size = 4
			}
			if len(data) < size {
				return nil, errors.New("short fixed")
			}
			f.data, data = data[:size], data[size:]
		case 2:
			l, n := readVarint(data)
			if n == 0 || l > uint64(len(data)-n) {
				return nil, errors.New("bad length")
			}
			f.data, data = data[n:n+int(l)], data[n+int(l):]
			if inner := nested(m, f.num); inner != msgNone {
				kids, err := parseMessage(f.data, inner)
				if err != nil {
					return nil, err
				}
				f.kids, f.msg, f.data = kids, inner, nil
			}
		default:
			return nil, errors.New("wire type")
		}
		out = append(out, f)
	}
	return out, nil
}

func readVarint(data []byte) (uint64, int) {
	var u uint64
	for i := 0; i < 10 && i < len(data); i++ {
		u |= uint64(data[i]&0x7f) << (7 * uint(i))
		if data[i]&0x80 == 0 {
			return u, i + 1
		}
	}
	return 0, 0
}

// appendVarint writes x with pad redundant bytes (at most 10 bytes in all).
func appendVarint(b []byte, x uint64, pad int) []byte {
	var tmp []byte
	for x >= 0x80 {
		tmp = append(tmp, byte(x)|0x80)
		x >>= 7
	}
	tmp = append(tmp, byte(x))
	for k := 0; k < pad && len(tmp) < 10; k++ {
		tmp[len(tmp)-1] |= 0x80
		tmp = append(tmp, 0)
	}
	return append(b, tmp...)
}

func encode(fields []*field) []byte {
	var b []byte
	for _, f := range fields {
		b = appendVarint(b, f.num<<3|f.typ, f.keyPad)
		switch f.typ {
		case 0:
			if f.overfull != 0 {
				x := f.v
				for k := 0; k < 9; k++ {
					b = append(b, byte(x)|0x80)
					x >>= 7
				}
				b = append(b, f.overfull)
			} else {
				b = appendVarint(b, f.v, f.valuePad)
			}
		case 1, 5:
			b = append(b, f.data...)
		case 2:
			content := f.data
			if f.kids != nil || f.msg != msgNone {
				content = encode(f.kids)
			}
			l := uint64(len(content))
			if f.length != nil {
				l = *f.length
			}
			b = appendVarint(b, l, f.valuePad)
			b = append(b, content...)
		default: // groups: the key alone
		}
	}
	return b
}

// node: a field and where it is.
type node struct {
	f      *field
	msg    msgType   // the message the field is in
	parent *[]*field // the list holding it
	index  int
}

func (c *mutation) tree() []*field {
	fields, err := parseMessage(c.seed.data, msgProfile)
	if err != nil {
		panic(err) // checked in readSeeds
	}
	return fields
}

func walk(fields *[]*field, m msgType, visit func(node)) {
	for i, f := range *fields {
		visit(node{f, m, fields, i})
		if f.msg != msgNone {
			walk(&f.kids, f.msg, visit)
		}
	}
}

func pickNode(c *mutation, root *[]*field, ok func(node) bool) (node, error) {
	var nodes []node
	walk(root, msgProfile, func(n node) {
		if ok(n) {
			nodes = append(nodes, n)
		}
	})
	if len(nodes) == 0 {
		return node{}, errors.New("no such field")
	}
	return nodes[c.rng.Intn(len(nodes))], nil
}

func names(m msgType, num uint64) string {
	n := map[msgType]string{msgProfile: "Profile", msgValueType: "ValueType", msgSample: "Sample",
		msgLabel: "Label", msgMapping: "Mapping", msgLocation: "Location", msgLine: "Line",
		msgFunction: "Function"}
	return fmt.Sprintf("%s.%d", n[m], num)
}

// facts about the seed used to choose edge values.
type facts struct {
	strings int
	maxID   map[msgType]uint64
	ids     map[msgType][]uint64
}

func factsOf(root []*field) facts {
	fa := facts{maxID: map[msgType]uint64{}, ids: map[msgType][]uint64{}}
	walk(&root, msgProfile, func(n node) {
		if n.msg == msgProfile && n.f.num == 6 {
			fa.strings++
		}
		if roleOf(n.msg, n.f.num) == roleID && n.f.typ == 0 {
			fa.ids[n.msg] = append(fa.ids[n.msg], n.f.v)
			if n.f.v > fa.maxID[n.msg] {
				fa.maxID[n.msg] = n.f.v
			}
		}
	})
	return fa
}

// refTarget: the message whose ids a reference field names.
func refTarget(m msgType) msgType {
	switch m {
	case msgSample:
		return msgLocation
	case msgLocation:
		return msgMapping
	case msgLine:
		return msgFunction
	}
	return msgNone
}

func edgeValue(c *mutation, fa facts, n node) (uint64, string) {
	rng := c.rng
	switch roleOf(n.msg, n.f.num) {
	case roleID, roleRef:
		target := n.msg
		if r := roleOf(n.msg, n.f.num); r == roleRef {
			target = refTarget(n.msg)
		}
		ids := fa.ids[target]
		switch rng.Intn(6) {
		case 0:
			return 0, "zero id"
		case 1:
			return fa.maxID[target] + 1, "missing id"
		case 2:
			if len(ids) > 0 {
				return ids[rng.Intn(len(ids))], "another existing id"
			}
			return 1, "id 1"
		case 3:
			return math.MaxUint64, "id 2^64-1"
		case 4:
			return 1 << 31, "id 2^31"
		default:
			return uint64(rng.Intn(1000)), "random id"
		}
	case roleString:
		switch rng.Intn(7) {
		case 0:
			return 0, "string 0"
		case 1:
			return uint64(fa.strings), "string index = table size"
		case 2:
			return uint64(fa.strings - 1), "last string"
		case 3:
			return math.MaxUint64, "string index -1"
		case 4:
			return 1 << 31, "string index 2^31"
		case 5:
			return 1 << 63, "string index -2^63"
		default:
			return uint64(rng.Intn(fa.strings + 1)), "random string index"
		}
	default:
		values := []struct {
			v    uint64
			what string
		}{
			{0, "0"}, {1, "1"}, {math.MaxUint64, "-1"}, {math.MaxInt32, "2^31-1"},
			{1 << 31, "2^31"}, {1 << 63, "-2^63"}, {math.MaxInt64, "2^63-1"},
			{1<<53 + 1, "2^53+1"}, {uint64(rng.Int63()), "random"},
			{uint64(-int64(rng.Intn(1000))), "small negative"},
		}
		x := values[rng.Intn(len(values))]
		return x.v, x.what
	}
}

func finish(c *mutation, root []*field, detail string) (string, error) {
	c.data = encode(root)
	return detail, nil
}

func rewriteVarint(c *mutation) (string, error) {
	root := c.tree()
	fa := factsOf(root)
	n, err := pickNode(c, &root, func(n node) bool {
		return n.f.typ == 0 || (n.f.typ == 2 && packedField(n.msg, n.f.num))
	})
	if err != nil {
		return "", err
	}
	v, what := edgeValue(c, fa, n)
	if n.f.typ == 0 {
		n.f.v = v
		return finish(c, root, fmt.Sprintf("%s := %s", names(n.msg, n.f.num), what))
	}
	// One number of a packed list.
	nums := unpack(n.f.data)
	if len(nums) == 0 {
		return "", errors.New("empty packed field")
	}
	k := c.rng.Intn(len(nums))
	nums[k] = v
	n.f.data = pack(nums)
	return finish(c, root, fmt.Sprintf("%s[%d] := %s", names(n.msg, n.f.num), k, what))
}

func unpack(data []byte) []uint64 {
	var out []uint64
	for len(data) > 0 {
		v, n := readVarint(data)
		if n == 0 {
			return out
		}
		out = append(out, v)
		data = data[n:]
	}
	return out
}

func pack(nums []uint64) []byte {
	var b []byte
	for _, v := range nums {
		b = appendVarint(b, v, 0)
	}
	return b
}

func dropField(c *mutation) (string, error) {
	root := c.tree()
	n, err := pickNode(c, &root, func(node) bool { return true })
	if err != nil {
		return "", err
	}
	*n.parent = append((*n.parent)[:n.index:n.index], (*n.parent)[n.index+1:]...)
	return finish(c, root, "drop "+names(n.msg, n.f.num))
}

func dupField(c *mutation) (string, error) {
	root := c.tree()
	n, err := pickNode(c, &root, func(node) bool { return true })
	if err != nil {
		return "", err
	}
	list := *n.parent
	at := n.index + 1
	where := "after it"
	if c.rng.Intn(2) == 0 {
		at, where = len(list), "at the end"
	}
	copyOf := *n.f
	*n.parent = append(list[:at:at], append([]*field{&copyOf}, list[at:]...)...)
	return finish(c, root, fmt.Sprintf("dup %s %s", names(n.msg, n.f.num), where))
}

func stringNodes(c *mutation, root *[]*field) []node {
	var nodes []node
	walk(root, msgProfile, func(n node) {
		if n.msg == msgProfile && n.f.num == 6 && n.f.typ == 2 {
			nodes = append(nodes, n)
		}
	})
	return nodes
}

func changeString(c *mutation) (string, error) {
	root := c.tree()
	nodes := stringNodes(c, &root)
	if len(nodes) < 2 {
		return "", errors.New("no strings")
	}
	k := 1 + c.rng.Intn(len(nodes)-1)
	values := []struct {
		s, what string
	}{
		{"", "empty"}, {"\xff\xfe", "invalid UTF-8"}, {"a\x00b", "NUL"},
		{"x\ny\tz\\\"", "control characters"}, {"\xe2\x82", "cut UTF-8"}, {"ü€", "UTF-8"},
		{string(nodes[c.rng.Intn(len(nodes))].f.data), "another entry"},
	}
	x := values[c.rng.Intn(len(values))]
	nodes[k].f.data = []byte(x.s)
	return finish(c, root, fmt.Sprintf("string %d := %s", k, x.what))
}

func changeString0(c *mutation) (string, error) {
	root := c.tree()
	nodes := stringNodes(c, &root)
	if len(nodes) == 0 {
		return "", errors.New("no strings")
	}
	switch c.rng.Intn(4) {
	case 0:
		nodes[0].f.data = []byte("x")
		return finish(c, root, "string 0 := \"x\"")
	case 1:
		n := nodes[0]
		*n.parent = append((*n.parent)[:n.index:n.index], (*n.parent)[n.index+1:]...)
		return finish(c, root, "string 0 removed")
	case 2:
		n := nodes[0]
		first := &field{num: 6, typ: 2, data: []byte("first")}
		*n.parent = append((*n.parent)[:n.index:n.index], append([]*field{first}, (*n.parent)[n.index:]...)...)
		return finish(c, root, "a string before string 0")
	default:
		// Remove every string: an empty string table.
		var kept []*field
		for _, f := range root {
			if f.num != 6 {
				kept = append(kept, f)
			}
		}
		return finish(c, kept, "string table removed")
	}
}

func changeWireType(c *mutation) (string, error) {
	root := c.tree()
	n, err := pickNode(c, &root, func(node) bool { return true })
	if err != nil {
		return "", err
	}
	f := n.f
	from := f.typ
	to := []uint64{0, 1, 2, 5}[c.rng.Intn(4)]
	if to == from {
		to = (from + 2) % 4 // 0 <-> 2, 1 -> 3 is a group: fine too
	}
	switch to {
	case 0:
		f.v = uint64(len(f.data))
	case 1:
		f.data = make([]byte, 8)
	case 5:
		f.data = make([]byte, 4)
	case 2:
		if from == 0 {
			f.data = appendVarint(nil, f.v, 0)
		}
		if f.kids != nil {
			f.data, f.kids = encode(f.kids), nil
		}
	}
	if to != 2 {
		f.kids = nil
	}
	f.msg = msgNone
	f.typ = to
	return finish(c, root, fmt.Sprintf("%s wire type %d -> %d", names(n.msg, f.num), from, to))
}

func addUnknownField(c *mutation) (string, error) {
	root := c.tree()
	n, err := pickNode(c, &root, func(n node) bool { return n.f.msg != msgNone })
	container, where := &root, "Profile"
	if err == nil && c.rng.Intn(2) == 0 {
		container, where = &n.f.kids, names(n.msg, n.f.num)
	}
	nums := []uint64{0, 15, 16, 100, 1 << 28, 1<<29 - 1, 1 << 29, 1 << 32, 1 << 60}
	f := &field{num: nums[c.rng.Intn(len(nums))], typ: []uint64{0, 1, 2, 3, 4, 5, 6, 7}[c.rng.Intn(8)]}
	switch f.typ {
	case 0:
		f.v = uint64(c.rng.Intn(300))
	case 1:
		f.data = make([]byte, 8)
	case 5:
		f.data = make([]byte, 4)
	case 2:
		f.data = []byte("unknown")
	}
	at := c.rng.Intn(len(*container) + 1)
	*container = append((*container)[:at:at], append([]*field{f}, (*container)[at:]...)...)
	return finish(c, root, fmt.Sprintf("field %d wire type %d in %s", f.num, f.typ, where))
}

func changePacking(c *mutation) (string, error) {
	root := c.tree()
	n, err := pickNode(c, &root, func(n node) bool { return packedField(n.msg, n.f.num) })
	if err != nil {
		return "", err
	}
	f := n.f
	what := names(n.msg, f.num)
	switch {
	case f.typ == 2 && c.rng.Intn(3) == 0:
		// Unpacked: one varint field per number.
		var repl []*field
		for _, v := range unpack(f.data) {
			repl = append(repl, &field{num: f.num, typ: 0, v: v})
		}
		*n.parent = append((*n.parent)[:n.index:n.index], append(repl, (*n.parent)[n.index+1:]...)...)
		return finish(c, root, "unpack "+what)
	case f.typ == 2 && c.rng.Intn(2) == 0:
		nums := unpack(f.data)
		if len(nums) > 0 {
			nums = nums[:len(nums)-1]
			f.data = pack(nums)
			return finish(c, root, "one number fewer in "+what)
		}
		fallthrough
	case f.typ == 2:
		f.data = pack(append(unpack(f.data), uint64(c.rng.Intn(5))))
		return finish(c, root, "one number more in "+what)
	default:
		// An unpacked number made a packed list of one, or a second packed
		// field of the same number added.
		f.typ, f.data = 2, pack([]uint64{f.v})
		return finish(c, root, "pack "+what)
	}
}

func overlongVarint(c *mutation) (string, error) {
	root := c.tree()
	n, err := pickNode(c, &root, func(node) bool { return true })
	if err != nil {
		return "", err
	}
	switch c.rng.Intn(3) {
	case 0:
		n.f.keyPad = 1 + c.rng.Intn(9)
		return finish(c, root, fmt.Sprintf("key of %s padded by %d", names(n.msg, n.f.num), n.f.keyPad))
	case 1:
		n.f.valuePad = 1 + c.rng.Intn(9)
		return finish(c, root, fmt.Sprintf("value of %s padded by %d", names(n.msg, n.f.num), n.f.valuePad))
	default:
		// A 10-byte varint whose last byte holds more than one bit: Go's
		// decoder drops the overflow, strict decoders refuse it.
		if n.f.typ != 0 {
			return "", errors.New("not a varint")
		}
		n.f.overfull = byte(2 + c.rng.Intn(126))
		return finish(c, root, fmt.Sprintf("value of %s: 10-byte varint, last byte %#x",
			names(n.msg, n.f.num), n.f.overfull))
	}
}

func changeLength(c *mutation) (string, error) {
	root := c.tree()
	n, err := pickNode(c, &root, func(n node) bool { return n.f.typ == 2 })
	if err != nil {
		return "", err
	}
	content := n.f.data
	if n.f.kids != nil {
		content = encode(n.f.kids)
	}
	l := uint64(len(content))
	choices := []struct {
		v    uint64
		what string
	}{
		{l + 1, "+1"}, {l - 1, "-1"}, {math.MaxUint64, "-1 (2^64-1)"}, {1 << 62, "2^62"},
		{1 << 31, "2^31"}, {l + 1000, "+1000"},
	}
	if l == 0 {
		choices[1] = choices[0]
	}
	x := choices[c.rng.Intn(len(choices))]
	n.f.length = &x.v
	return finish(c, root, fmt.Sprintf("length of %s %s", names(n.msg, n.f.num), x.what))
}

func dropLines(c *mutation) (string, error) {
	root := c.tree()
	n, err := pickNode(c, &root, func(n node) bool { return n.f.msg == msgLocation })
	if err != nil {
		return "", err
	}
	var kept []*field
	for _, f := range n.f.kids {
		if f.num != 4 {
			kept = append(kept, f)
		}
	}
	n.f.kids = kept
	return finish(c, root, "lines of a location removed")
}

func changeLabel(c *mutation) (string, error) {
	root := c.tree()
	fa := factsOf(root)
	n, err := pickNode(c, &root, func(n node) bool { return n.f.msg == msgSample })
	if err != nil {
		return "", err
	}
	s := uint64(fa.strings)
	str := []uint64{0, 1, s - 1, s, math.MaxUint64}[c.rng.Intn(5)]
	num := []uint64{0, 1, math.MaxUint64, 1 << 60}[c.rng.Intn(4)]
	unit := []uint64{0, 1, s - 1, s, math.MaxUint64}[c.rng.Intn(5)]
	key := []uint64{0, 1, s - 1, s}[c.rng.Intn(4)]
	var label []*field
	for _, kv := range [][2]uint64{{1, key}, {2, str}, {3, num}, {4, unit}} {
		if kv[1] != 0 || c.rng.Intn(4) == 0 {
			label = append(label, &field{num: kv[0], typ: 0, v: kv[1]})
		}
	}
	n.f.kids = append(n.f.kids, &field{num: 3, typ: 2, kids: label, msg: msgLabel})
	return finish(c, root, fmt.Sprintf("label key=%d str=%d num=%d unit=%d", key, str, int64(num), int64(unit)))
}
