// Command pprof-dump is the reference side of the differential test of
// read_pprof() (tests/testthat/test-oracle-pprof.R): it parses pprof files with
// Go's own parser, github.com/google/pprof/profile, and prints for each file a
// canonical dump of what Go read, or the error Go gave.
//
// Build (Debian's golang-github-google-pprof-dev, GOPATH mode, no network):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o pprof-dump .
//
// Usage: many files in one process, so that tens of thousands of cases run in
// seconds:
//
//	pprof-dump < paths      one path per line on stdin
//	pprof-dump DIR          every file in DIR, in byte order of their names
//
// For each file it prints a line "### <path>", then either one line
// "ERROR <message>" or the dump described below.
//
// # What "Go accepts" means here
//
// profile.ParseData(data) gunzips data that start with the gzip magic, then
// parses the protobuf with ParseUncompressed; when that fails (for any reason
// other than empty input or concatenated profiles) it falls back to the legacy
// text and binary formats (gperftools, Java, Go's debug=1 text), and then runs
// CheckValid. The legacy formats are outside read_pprof()'s contract, so this
// program does what ParseData does without the fallback: it gunzips the data
// itself (compress/gzip, as ParseData does), calls ParseUncompressed and then
// CheckValid. A file Go could only read as a legacy format is an ERROR here.
//
// Debian's copy of the package (a 2021 snapshot) predates two fields of
// profile.proto: Profile.doc_url (15) and Line.column (3). It skips them as
// unknown fields, while the current package (and read_pprof()) decodes them:
// a wrong wire type is then a "type mismatch", and doc_url must be a valid
// string index. checkNewerFields applies those two rules, so the oracle is the
// current parser's behaviour, not the snapshot's.
//
// # The dump
//
// One fact per line; strings are quoted (see quote). Numbers are what the v2
// tables of read_pprof() hold (see "projections" below).
//
//	sample_type "<type>" "<unit>"                    per sample type, in order
//	default_sample_type "<s>"
//	period_type "<type>" "<unit>"
//	period <n>
//	time_nanos <n>
//	duration_nanos <n>
//	drop_frames "<s>"
//	keep_frames "<s>"
//	comment "<s>"                                    per comment, in order
//	mapping <k> "<file>" "<build id>" <start> <limit> <offset> <has_functions><has_filenames><has_line_numbers><has_inline_frames>
//	sample <i>                                       per sample, in file order
//	 value <v> ...                                   one per sample type
//	 frame "<name>" "<system name>" "<file>" <start line> <line> <inlined> <address> <mapping k> <folded>
//	 label "<key>" "<value>"                         string labels
//	 numlabel "<key>" <num> "<unit>"                 numeric labels
//
// Frames are innermost first: each Location of the sample, and within it its
// Lines from the first (innermost) to the last; a line is inlined (1) unless
// it is the last line of its Location. A Location without lines is one frame
// with name, system name and file "-" and start line and line NA. <mapping k>
// is the position (1-based) of the location's Mapping in the file's mapping
// list, "-" for none. Addresses are hexadecimal ("0x0" for none).
//
// Labels are shown as Go holds them: string labels (str != 0) in a map from key
// to values, numeric labels (str == 0, num or unit != 0) in a map from key to
// numbers and units; a label with neither is dropped. Keys are printed in the
// byte order of their escaped form (see escapeBytes), values of one key in
// file order, string labels first. A numeric label without a unit has unit "".
// (Two keys that differ only as invalid UTF-8 and as its "<xx>" escape are one
// key to read_pprof(); if one sample has both, interleaved, the file order
// that R keeps is not in Go's maps: the dumps would differ. No test file has
// such keys.)
//
// # Projections: what v2 tables cannot hold as Go does
//
// These are the deliberate differences listed in ?read_pprof; each is applied
// here so that the dumps compare exactly.
//   - Strings are UTF-8 in R and cannot hold NUL: invalid bytes and NUL are
//     written "<xx>" (escapeBytes), as read_pprof() does.
//   - Sample values, numeric labels, period and duration are doubles in R: they
//     are printed as float64(v), exactly (strconv 'f' format, no fraction).
//   - Lines and start lines are R integers, 0 = unknown: a number outside
//     0..2147483647 is NA.
//   - v2 identifies a sample type by its name: a name that occurs again gets
//     the suffix "#k", for the smallest k >= 2 that no other type has
//     (dedupTypes).
//   - profile's writer leaves out the system name of R frames (mapping "[R]")
//     when it equals the name; the reader puts it back for functions used only
//     by locations in such a mapping (restoreRSystemNames).
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/pprof/profile"
)

func main() {
	out := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer out.Flush()
	var paths []string
	switch len(os.Args) {
	case 1:
		in := bufio.NewScanner(os.Stdin)
		in.Buffer(make([]byte, 1<<16), 1<<20)
		for in.Scan() {
			if line := strings.TrimRight(in.Text(), "\r"); line != "" {
				paths = append(paths, line)
			}
		}
		if err := in.Err(); err != nil {
			fmt.Fprintln(os.Stderr, "pprof-dump: reading paths:", err)
			os.Exit(2)
		}
	case 2:
		entries, err := os.ReadDir(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, "pprof-dump:", err)
			os.Exit(2)
		}
		for _, e := range entries {
			if !e.IsDir() {
				paths = append(paths, filepath.Join(os.Args[1], e.Name()))
			}
		}
		sort.Strings(paths)
	default:
		fmt.Fprintln(os.Stderr, "usage: pprof-dump [DIR] (paths on stdin without DIR)")
		os.Exit(2)
	}
	for _, path := range paths {
		fmt.Fprintf(out, "### %s\n", path)
		p, err := parseFile(path)
		if err != nil {
			fmt.Fprintf(out, "ERROR %s\n", oneLine(err.Error()))
			continue
		}
		dump(out, p)
	}
}

func parseFile(path string) (p *profile.Profile, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	// A panic in the parser is a refusal too (and shows in the message).
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("panic: %v", r)
		}
	}()
	return parse(data)
}

// parse is profile.ParseData without the fallback to legacy formats.
func parse(data []byte) (*profile.Profile, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		gz, err := gzip.NewReader(bytes.NewReader(data))
		if err == nil {
			data, err = io.ReadAll(gz)
		}
		if err != nil {
			return nil, fmt.Errorf("decompressing profile: %v", err)
		}
	}
	p, err := profile.ParseUncompressed(data)
	if err != nil {
		return nil, fmt.Errorf("parsing profile: %v", err)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("malformed profile: %v", err)
	}
	if err := checkNewerFields(data); err != nil {
		return nil, fmt.Errorf("parsing profile: %v", err)
	}
	return p, nil
}

// checkNewerFields applies the current package's rules for the fields that
// Debian's snapshot skips: Profile.doc_url (15) and Line.column (3) must be
// varints, and doc_url a valid string index. It runs after a successful parse,
// so the wire format of data is known to be sound.
func checkNewerFields(data []byte) error {
	var strs, docURL uint64
	err := fields(data, func(field, typ uint64, value []byte, v uint64) error {
		switch field {
		case 6:
			strs++
		case 15:
			if typ != 0 {
				return errors.New("type mismatch (doc_url)")
			}
			docURL = v
		case 4: // Location
			return fields(value, func(field, typ uint64, value []byte, _ uint64) error {
				if field != 4 { // Line
					return nil
				}
				return fields(value, func(field, typ uint64, _ []byte, _ uint64) error {
					if field == 3 && typ != 0 {
						return errors.New("type mismatch (Line.column)")
					}
					return nil
				})
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	// getString's rule: 0 <= index < len(string table), index as int64.
	if int64(docURL) < 0 || docURL >= strs {
		return errors.New("malformed profile format (doc_url)")
	}
	return nil
}

// fields calls f for each field of the protobuf message data: its number, wire
// type, content (length-delimited) or value (varint), decoding as the profile
// package does (varints of at most 10 bytes, wire types 0, 1, 2, 5).
func fields(data []byte, f func(field, typ uint64, value []byte, v uint64) error) error {
	for len(data) > 0 {
		key, rest, err := varint(data)
		if err != nil {
			return err
		}
		data = rest
		var content []byte
		var v uint64
		switch typ := key & 7; typ {
		case 0:
			if v, data, err = varint(data); err != nil {
				return err
			}
		case 1, 5:
			size := 8
			if typ == 5 {
				size = 4
			}
			if len(data) < size {
				return errors.New("not enough data")
			}
			data = data[size:]
		case 2:
			var n uint64
			if n, data, err = varint(data); err != nil {
				return err
			}
			if n > uint64(len(data)) {
				return errors.New("too much data")
			}
			content, data = data[:n], data[n:]
		default:
			return fmt.Errorf("unknown wire type: %d", typ)
		}
		if err := f(key>>3, key&7, content, v); err != nil {
			return err
		}
	}
	return nil
}

func varint(data []byte) (uint64, []byte, error) {
	var u uint64
	for i := 0; i < 10 && i < len(data); i++ {
		u |= uint64(data[i]&0x7f) << (7 * uint(i))
		if data[i]&0x80 == 0 {
			return u, data[i+1:], nil
		}
	}
	return 0, nil, errors.New("bad varint")
}

func dump(w io.Writer, p *profile.Profile) {
	types := dedupTypes(p.SampleType)
	for i, st := range p.SampleType {
		fmt.Fprintf(w, "sample_type %s %s\n", quote(types[i]), quote(st.Unit))
	}
	fmt.Fprintf(w, "default_sample_type %s\n", quote(p.DefaultSampleType))
	fmt.Fprintf(w, "period_type %s %s\n", quote(p.PeriodType.Type), quote(p.PeriodType.Unit))
	fmt.Fprintf(w, "period %s\n", number(p.Period))
	fmt.Fprintf(w, "time_nanos %d\n", p.TimeNanos)
	fmt.Fprintf(w, "duration_nanos %s\n", number(p.DurationNanos))
	fmt.Fprintf(w, "drop_frames %s\n", quote(p.DropFrames))
	fmt.Fprintf(w, "keep_frames %s\n", quote(p.KeepFrames))
	for _, c := range p.Comments {
		fmt.Fprintf(w, "comment %s\n", quote(c))
	}
	mappingPos := make(map[*profile.Mapping]int, len(p.Mapping))
	for i, m := range p.Mapping {
		mappingPos[m] = i + 1
		fmt.Fprintf(w, "mapping %d %s %s %#x %#x %#x %s%s%s%s\n", i+1, quote(m.File), quote(m.BuildID),
			m.Start, m.Limit, m.Offset, flag(m.HasFunctions), flag(m.HasFilenames),
			flag(m.HasLineNumbers), flag(m.HasInlineFrames))
	}
	systemNames := restoreRSystemNames(p)
	for i, s := range p.Sample {
		fmt.Fprintf(w, "sample %d\n", i+1)
		fmt.Fprint(w, " value")
		for _, v := range s.Value {
			fmt.Fprintf(w, " %s", number(v))
		}
		fmt.Fprintln(w)
		for _, loc := range s.Location {
			mapping := "-"
			if k, ok := mappingPos[loc.Mapping]; ok {
				mapping = strconv.Itoa(k)
			}
			tail := fmt.Sprintf("%#x %s %s", loc.Address, mapping, flag(loc.IsFolded))
			if len(loc.Line) == 0 {
				fmt.Fprintf(w, " frame - - - NA NA 0 %s\n", tail)
			}
			for k, ln := range loc.Line {
				f := ln.Function
				fmt.Fprintf(w, " frame %s %s %s %s %s %s %s\n", quote(f.Name), quote(systemNames[f]),
					quote(f.Filename), lineNumber(f.StartLine), lineNumber(ln.Line),
					flag(k < len(loc.Line)-1), tail)
			}
		}
		for _, key := range sortedKeys(s.Label) {
			for _, v := range s.Label[key] {
				fmt.Fprintf(w, " label %s %s\n", quote(key), quote(v))
			}
		}
		for _, key := range sortedKeys(s.NumLabel) {
			units := s.NumUnit[key]
			for k, v := range s.NumLabel[key] {
				unit := ""
				if k < len(units) {
					unit = units[k]
				}
				fmt.Fprintf(w, " numlabel %s %s %s\n", quote(key), number(v), quote(unit))
			}
		}
	}
}

// dedupTypes: the sample type names as v2 holds them (see the header).
// Names are compared as read_pprof() holds them, escaped (escapeBytes).
func dedupTypes(sampleTypes []*profile.ValueType) []string {
	taken := make(map[string]bool, len(sampleTypes))
	for _, st := range sampleTypes {
		taken[escapeBytes(st.Type)] = true
	}
	seen := make(map[string]bool, len(sampleTypes))
	names := make([]string, len(sampleTypes))
	for i, st := range sampleTypes {
		name := escapeBytes(st.Type)
		if seen[name] {
			for k := 2; ; k++ {
				candidate := name + "#" + strconv.Itoa(k)
				if !taken[candidate] {
					name = candidate
					break
				}
			}
			taken[name] = true
		}
		seen[name] = true
		names[i] = name
	}
	return names
}

// restoreRSystemNames: the system name of each function as read_pprof() shows
// it (see the header).
func restoreRSystemNames(p *profile.Profile) map[*profile.Function]string {
	inR := map[*profile.Function]bool{}
	elsewhere := map[*profile.Function]bool{}
	for _, loc := range p.Location {
		r := loc.Mapping != nil && loc.Mapping.File == "[R]"
		for _, ln := range loc.Line {
			if r {
				inR[ln.Function] = true
			} else {
				elsewhere[ln.Function] = true
			}
		}
	}
	names := make(map[*profile.Function]string, len(p.Function))
	for _, f := range p.Function {
		names[f] = f.SystemName
		if inR[f] && !elsewhere[f] && f.SystemName == "" && f.Name != "" {
			names[f] = f.Name
		}
	}
	return names
}

// sortedKeys: the keys of a label map in the byte order of their escaped
// form, which is what read_pprof() holds (then by their raw bytes).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := escapeBytes(keys[i]), escapeBytes(keys[j])
		if a != b {
			return a < b
		}
		return keys[i] < keys[j]
	})
	return keys
}

// number prints an int64 as the double R holds, exactly.
func number(v int64) string {
	return strconv.FormatFloat(float64(v), 'f', 0, 64)
}

func lineNumber(v int64) string {
	if v < 0 || v > 2147483647 {
		return "NA"
	}
	return strconv.FormatInt(v, 10)
}

func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// quote: a string between double quotes, as UTF-8 with invalid bytes and NUL
// as "<xx>" (escapeBytes); backslash, double quote and other control
// characters are escaped (\\, \", \xHH) so that a dump line never breaks.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range []byte(escapeBytes(s)) {
		switch {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// escapeBytes: s as valid UTF-8, each invalid byte and NUL written "<xx>".
func escapeBytes(s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if (r == utf8.RuneError && size == 1) || r == 0 {
			fmt.Fprintf(&b, "<%02x>", s[0])
		} else {
			b.WriteString(s[:size])
		}
		s = s[size:]
	}
	return b.String()
}

func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
}
