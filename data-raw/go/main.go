// Command profilesamples writes small pprof sample files with the Go
// standard library's runtime/pprof: a CPU profile with string labels and
// heap, goroutine, mutex and block profiles, and a CPU profile of functions
// whose names are not ASCII (-profiles unicode). It is used by
// data-raw/go-samples.sh to refresh inst/samples/pprof/, and by the
// benchmark scripts to make a large CPU profile:
//
//	go run . -out DIR [-cpu-seconds 1.5] [-cpu-rate 250] [-profiles cpu,heap]
//
// Only the standard library is used, so it builds offline.
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

func init() {
	// Record every allocation (set before main allocates anything), so the
	// heap profile is dense even though the program is short.
	runtime.MemProfileRate = 1
}

var sink interface{}

// ---------------------------------------------------------------------------
// CPU workloads

func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

func hashChain(rounds int) [32]byte {
	sum := sha256.Sum256([]byte("profile"))
	for i := 0; i < rounds; i++ {
		sum = sha256.Sum256(sum[:])
	}
	return sum
}

func sortWords(n int) []string {
	words := make([]string, n)
	x := uint32(2463534242)
	for i := range words {
		// xorshift: a fixed sequence, no math/rand seeding needed
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		words[i] = strconv.FormatUint(uint64(x), 36)
	}
	sort.Strings(words)
	return words
}

func buildText(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "line %d: %s\n", i, strings.Repeat("ab", i%7))
	}
	return b.String()
}

// busy runs work in a loop until the deadline passes.
func busy(deadline time.Time, work func()) {
	for time.Now().Before(deadline) {
		work()
	}
}

func writeCPU(dir string, seconds float64, rate int) error {
	return writeFile(filepath.Join(dir, "cpu.pb.gz"), func(f *os.File) error {
		// Sample faster than the default 100 Hz. StartCPUProfile then tries
		// to set 100 Hz itself and prints a harmless warning; the period
		// written into the profile is the one set here. Linux delivers
		// CPU-time timer signals at most once per kernel tick per thread
		// (250 Hz with CONFIG_HZ=250): a higher rate gives no more samples,
		// only a period that is too small, so the default stays at 250.
		runtime.SetCPUProfileRate(rate)
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		deadline := time.Now().Add(time.Duration(seconds * float64(time.Second)))
		var wg sync.WaitGroup
		run := func(labels pprof.LabelSet, work func()) {
			wg.Add(1)
			go pprof.Do(context.Background(), labels, func(ctx context.Context) {
				defer wg.Done()
				busy(deadline, work)
			})
		}
		run(pprof.Labels("worker", "fib", "phase", "compute"), func() { sink = fib(22) })
		run(pprof.Labels("worker", "hash", "phase", "compute"), func() { sink = hashChain(2000) })
		run(pprof.Labels("worker", "text", "phase", "format"), func() {
			sink = sortWords(2000)
			sink = buildText(300)
		})
		// unlabelled work on the main goroutine
		busy(deadline, func() { sink = fib(18) })
		wg.Wait()
		pprof.StopCPUProfile()
		return nil
	})
}

// ---------------------------------------------------------------------------
// CPU profile with names outside ASCII (unicode.pb.gz)

// Function names with letters and digits that are not ASCII, next to ASCII
// ones: in Go's regular expressions (what go tool pprof matches -focus and
// the other patterns with) \w, \d and \b are ASCII, `.` is a character;
// elsewhere (PCRE, Rust's regex) they may be Unicode. noinline keeps each a
// frame of its own.

//go:noinline
func größe(n int) int { return fib(n) }

//go:noinline
func café(n int) int { return fib(n) + 1 }

//go:noinline
func work٣(n int) int { return fib(n) + 3 }

//go:noinline
func work3(n int) int { return fib(n) + 3 }

//go:noinline
func δοκιμή(n int) [32]byte { return hashChain(n) }

func writeUnicode(dir string, seconds float64, rate int) error {
	return writeFile(filepath.Join(dir, "unicode.pb.gz"), func(f *os.File) error {
		runtime.SetCPUProfileRate(rate)
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		deadline := time.Now().Add(time.Duration(seconds * float64(time.Second)))
		var wg sync.WaitGroup
		run := func(labels pprof.LabelSet, work func()) {
			wg.Add(1)
			go pprof.Do(context.Background(), labels, func(ctx context.Context) {
				defer wg.Done()
				busy(deadline, work)
			})
		}
		run(pprof.Labels("stage", "größe"), func() { sink = größe(20) })
		run(pprof.Labels("stage", "café"), func() { sink = café(20) })
		run(pprof.Labels("stage", "work٣"), func() { sink = work٣(20) })
		run(pprof.Labels("stage", "work3"), func() { sink = work3(20) })
		busy(deadline, func() { sink = δοκιμή(500) })
		wg.Wait()
		pprof.StopCPUProfile()
		return nil
	})
}

// ---------------------------------------------------------------------------
// Heap

type node struct {
	key   string
	value []byte
	next  *node
}

var retained []*node

func allocList(n, size int) *node {
	var head *node
	for i := 0; i < n; i++ {
		head = &node{key: strconv.Itoa(i), value: make([]byte, size), next: head}
	}
	return head
}

func allocMap(n int) map[string][]int {
	m := make(map[string][]int)
	for i := 0; i < n; i++ {
		m["k"+strconv.Itoa(i%97)] = append(m["k"+strconv.Itoa(i%97)], i)
	}
	return m
}

func writeHeap(dir string) error {
	// kept alive: shows up as in-use memory
	for i := 0; i < 4; i++ {
		retained = append(retained, allocList(500, 64*(i+1)))
	}
	// garbage: only in the alloc_* sample types
	for i := 0; i < 20; i++ {
		sink = allocMap(2000)
		sink = buildText(200)
	}
	sink = nil
	runtime.GC() // the heap profile is as of the last collection
	err := writeFile(filepath.Join(dir, "heap.pb.gz"), func(f *os.File) error {
		return pprof.Lookup("heap").WriteTo(f, 0)
	})
	// back to the default, so that recording allocations does not slow
	// down (and show up in) the profiles written afterwards
	runtime.MemProfileRate = 512 * 1024
	return err
}

// ---------------------------------------------------------------------------
// Goroutines: a few parked goroutines, some of them labelled.

func writeGoroutine(dir string) error {
	stop := make(chan struct{})
	var ready, done sync.WaitGroup
	park := func(labels pprof.LabelSet, wait func()) {
		ready.Add(1)
		done.Add(1)
		go pprof.Do(context.Background(), labels, func(ctx context.Context) {
			defer done.Done()
			ready.Done()
			wait()
		})
	}
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	for i := 0; i < 3; i++ {
		park(pprof.Labels("role", "listener", "id", strconv.Itoa(i)), func() { <-stop })
	}
	park(pprof.Labels("role", "ticker"), func() {
		t := time.NewTicker(time.Hour)
		defer t.Stop()
		select {
		case <-stop:
		case <-t.C:
		}
	})
	park(pprof.Labels("role", "waiter"), func() {
		mu.Lock()
		for {
			select {
			case <-stop:
				mu.Unlock()
				return
			default:
			}
			cond.Wait()
		}
	})
	ready.Wait()
	time.Sleep(50 * time.Millisecond) // let them all park
	err := writeFile(filepath.Join(dir, "goroutine.pb.gz"), func(f *os.File) error {
		return pprof.Lookup("goroutine").WriteTo(f, 0)
	})
	close(stop)
	mu.Lock()
	cond.Broadcast()
	mu.Unlock()
	done.Wait()
	return err
}

// ---------------------------------------------------------------------------
// Mutex contention and blocking

type counter struct {
	mu sync.Mutex
	n  map[int]int
}

func (c *counter) add(k int) {
	c.mu.Lock()
	c.n[k%10]++
	sink = hashChain(20) // hold the lock for a while
	c.mu.Unlock()
}

type registry struct {
	mu    sync.RWMutex
	names []string
}

func (r *registry) register(name string) {
	r.mu.Lock()
	r.names = append(r.names, name)
	sink = sortWords(50)
	r.mu.Unlock()
}

func (r *registry) size() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	sink = hashChain(10)
	return len(r.names)
}

func contend(workers, iterations int) {
	c := &counter{n: make(map[int]int)}
	r := &registry{}
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < iterations; i++ {
				c.add(w + i)
				if i%4 == w%4 {
					r.register(strconv.Itoa(i))
				} else {
					sink = r.size()
				}
			}
		}(w)
	}
	wg.Wait()
}

func pipeline(items int) {
	jobs := make(chan int)
	results := make(chan [32]byte)
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results <- hashChain(j % 50)
			}
		}()
	}
	go func() {
		for i := 0; i < items; i++ {
			jobs <- i
		}
		close(jobs)
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	for r := range results {
		sink = r
		time.Sleep(10 * time.Microsecond)
	}
}

func writeMutexAndBlock(dir string, which map[string]bool) error {
	// Both stay switched on: the profiles are scaled by the current rate
	// when written, and a rate of 0 gives an empty mutex profile.
	runtime.SetMutexProfileFraction(1)
	runtime.SetBlockProfileRate(1)
	contend(4, 400)
	pipeline(400)
	for _, name := range []string{"mutex", "block"} {
		if !which[name] {
			continue
		}
		p := pprof.Lookup(name)
		err := writeFile(filepath.Join(dir, name+".pb.gz"), func(f *os.File) error {
			return p.WriteTo(f, 0)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------------------

// writeFile writes through a temporary file in the same directory and
// renames it into place, so a failed run never leaves a partial file.
func writeFile(path string, write func(*os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	tmp := f.Name()
	if err := write(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}

func main() {
	out := flag.String("out", ".", "output directory")
	cpuSeconds := flag.Float64("cpu-seconds", 1.5, "CPU profile duration in seconds (wall clock)")
	cpuRate := flag.Int("cpu-rate", 250, "CPU sampling rate in Hz")
	profiles := flag.String("profiles", "cpu,heap,goroutine,mutex,block", "comma-separated profiles to write")
	flag.Parse()

	which := map[string]bool{}
	for _, p := range strings.Split(*profiles, ",") {
		switch p = strings.TrimSpace(p); p {
		case "cpu", "heap", "goroutine", "mutex", "block", "unicode":
			which[p] = true
		case "":
		default:
			fmt.Fprintf(os.Stderr, "unknown profile %q\n", p)
			os.Exit(2)
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}

	check := func(err error) {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if which["heap"] {
		check(writeHeap(*out))
	}
	if which["cpu"] {
		check(writeCPU(*out, *cpuSeconds, *cpuRate))
	}
	if which["unicode"] {
		check(writeUnicode(*out, *cpuSeconds, *cpuRate))
	}
	if which["goroutine"] {
		check(writeGoroutine(*out))
	}
	if which["mutex"] || which["block"] {
		check(writeMutexAndBlock(*out, which))
	}
	for _, name := range []string{"heap", "cpu", "unicode", "goroutine", "mutex", "block"} {
		if which[name] {
			fmt.Printf("wrote %s\n", filepath.Join(*out, name+".pb.gz"))
		}
	}
}
