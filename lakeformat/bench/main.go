// Command bench measures lakeformat's encoders on one core: 1,000,000
// records of about 150-byte JSON payloads over 100 partitions, in every
// format and codec, and pyarrow writing the same rows with the same Parquet
// settings in the same run. It prints a Markdown table for BENCHMARKS.md.
//
//	go run ./bench -python .cache/venv/bin/python   (from lakeformat/; make bench-lakeformat does it)
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/queen-mq/queen-go/lakeformat"
	"github.com/queen-mq/queen-go/lakeformat/internal/gen"
)

func main() {
	n := flag.Int("records", 1_000_000, "records to encode")
	partitions := flag.Int("partitions", 100, "partitions the records spread over")
	payload := flag.Int("payload", 150, "payload bytes per record, about")
	runs := flag.Int("runs", 3, "runs of each encoder; the median is reported")
	python := flag.String("python", "", "python with pyarrow, for the comparison (none: skipped)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the encoders to this file")
	only := flag.String("only", "", "run only this encoder (jsonl+zstd, parquet+snappy, ...)")
	flag.Parse()
	runtime.GOMAXPROCS(1)
	log.SetFlags(0)

	recs := gen.Sorted(gen.Records(*n, *partitions, *payload, 1791007200000000, 42))
	var input int64 // the uncompressed JSONL bytes: the input every figure is measured against
	for i := range recs {
		input += int64(len(lakeformat.AppendLine(nil, &recs[i])))
	}
	fmt.Printf("%d records, %d partitions, %.1f MB of JSONL input (%d bytes a record), GOMAXPROCS=1, %s, %s/%s\n\n",
		*n, *partitions, float64(input)/1e6, input/int64(*n), runtime.Version(), runtime.GOOS, runtime.GOARCH)

	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}

	opts := slices.Clone(gen.AllOptions)
	secsOf := map[string]float64{} // median seconds by writer id
	var sample []byte
	fmt.Println("| encoder | records/s | MB/s of input | output MB | ratio | vs pyarrow |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	table := map[string]string{} // table rows by writer id
	// One output buffer for every run, its pages touched before the first:
	// the figures are the encoder's, not the allocator's.
	var buf bytes.Buffer
	buf.Grow(int(input) + 64<<20)
	clear(buf.AvailableBuffer()[:buf.Cap()])
	if *only != "" {
		opts = slices.DeleteFunc(opts, func(o lakeformat.Options) bool { return o.WriterID() != *only })
	}
	for _, o := range opts {
		o.Tenant, o.Queue = "t", "q"
		var secs []float64
		var out []byte
		for r := 0; r < *runs; r++ {
			out = nil
			runtime.GC()
			start := time.Now()
			out = encode(&buf, o, recs)
			secs = append(secs, time.Since(start).Seconds())
		}
		slices.Sort(secs)
		s := secs[len(secs)/2]
		secsOf[o.WriterID()] = s
		if o.Format == lakeformat.Parquet && o.Codec == lakeformat.Snappy {
			sample = out
		}
		table[o.WriterID()] = fmt.Sprintf("| lakeformat %s | %.0f | %.0f | %.1f | %.2f |", o.WriterID(),
			float64(*n)/s, float64(input)/s/1e6, float64(len(out))/1e6, float64(input)/float64(len(out)))
	}
	if *cpuprofile != "" {
		pprof.StopCPUProfile()
	}
	if *only == "" {
		zstdAlone(recs, input, *runs)
	}

	py := map[string]pyResult{}
	if *python != "" && sample != nil {
		py = runPyarrow(*python, sample, *runs)
	}
	for _, o := range opts {
		id := o.WriterID()
		vs := ""
		if p, ok := py[o.Codec.String()]; ok && o.Format == lakeformat.Parquet {
			vs = fmt.Sprintf("%.2fx", p.Seconds/secsOf[id])
		}
		fmt.Printf("%s %s |\n", table[id], vs)
	}
	for _, codec := range []string{"zstd", "snappy"} {
		if p, ok := py[codec]; ok {
			fmt.Printf("| pyarrow %s parquet+%s | %.0f | %.0f | %.1f | %.2f | 1.00x |\n", p.Version, codec,
				float64(*n)/p.Seconds, float64(input)/p.Seconds/1e6, float64(p.Bytes)/1e6, float64(input)/float64(p.Bytes))
		}
	}
	for _, r := range rows {
		fmt.Println(r)
	}
	fmt.Println("\n\"vs pyarrow\" is pyarrow's time over ours for the same rows and codec: above 1 means lakeformat is faster.")
}

// encode encodes recs into buf and returns a copy of the object.
func encode(buf *bytes.Buffer, o lakeformat.Options, recs []lakeformat.Record) []byte {
	buf.Reset()
	if err := gen.Encode(buf, o, recs); err != nil {
		log.Fatal(err)
	}
	return bytes.Clone(buf.Bytes())
}

// zstdAlone times klauspost's streaming zstd encoder alone over the JSONL
// text, at the level lakeformat uses and at the default level: the ceiling
// of any JSONL+zstd encoder built on it.
func zstdAlone(recs []lakeformat.Record, input int64, runs int) {
	text := make([]byte, 0, input)
	for i := range recs {
		text = lakeformat.AppendLine(text, &recs[i])
	}
	var out bytes.Buffer
	out.Grow(len(text))
	for _, level := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault} {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1))
		if err != nil {
			log.Fatal(err)
		}
		var secs []float64
		for r := 0; r < runs; r++ {
			out.Reset()
			enc.Reset(&out)
			start := time.Now()
			for i := 0; i < len(text); i += 64 << 10 {
				if _, err := enc.Write(text[i:min(i+64<<10, len(text))]); err != nil {
					log.Fatal(err)
				}
			}
			if err := enc.Close(); err != nil {
				log.Fatal(err)
			}
			secs = append(secs, time.Since(start).Seconds())
		}
		slices.Sort(secs)
		s := secs[len(secs)/2]
		rows = append(rows, fmt.Sprintf("| zstd alone over the JSONL text, level %s | %.0f | %.0f | %.1f | %.2f | |",
			level, float64(len(recs))/s, float64(input)/s/1e6, float64(out.Len())/1e6, float64(input)/float64(out.Len())))
	}
}

// rows are extra table rows, printed after the encoders'.
var rows []string

type pyResult struct {
	Version string  `json:"version"`
	Seconds float64 `json:"seconds"`
	Bytes   int64   `json:"bytes"`
}

// runPyarrow has bench/pyarrow_write.py read our Parquet sample (untimed)
// and time pyarrow writing the same table with each codec.
func runPyarrow(python string, sample []byte, runs int) map[string]pyResult {
	dir, err := os.MkdirTemp("", "lakebench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, "rows.parquet")
	if err := os.WriteFile(in, sample, 0o644); err != nil {
		log.Fatal(err)
	}
	debug.FreeOSMemory()
	_, self, _, _ := runtime.Caller(0)
	cmd := exec.Command(python, filepath.Join(filepath.Dir(self), "pyarrow_write.py"), in, fmt.Sprint(runs))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("pyarrow: %v", err)
	}
	res := map[string]pyResult{}
	if err := json.Unmarshal(out, &res); err != nil {
		log.Fatalf("pyarrow printed %q: %v", out, err)
	}
	return res
}
