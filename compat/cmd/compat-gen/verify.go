package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/queen-mq/queen-go/lakeformat"
)

// verifyLake reads a lake's data objects from the bucket's directory with
// lakeformat's own decoders and checks them against the expectation of
// the lake's tenant: every record once, every field as expected, each
// object under tenant= of that tenant and the dt= (and hour=) of its
// records, a Parquet footer naming that tenant, the lake's format and
// codec. A lake that fails here is the sink's fault, not an engine's, so
// compat-gen stops on it. It returns the number of data objects.
func verifyLake(s3dir string, c combo, want []expectedRow) (int, error) {
	root := filepath.Join(s3dir, s3Bucket, c.ID())
	keys, err := lakeformat.NewKeys(c.ID())
	if err != nil {
		return 0, err
	}
	format, err := lakeformat.ParseFormat(c.Format)
	if err != nil {
		return 0, err
	}
	codec, err := lakeformat.ParseCodec(c.Codec)
	if err != nil {
		return 0, err
	}
	type id struct {
		queue, partition string
		offset           int64
	}
	wantBy := map[id]*expectedRow{}
	for i := range want {
		w := &want[i]
		wantBy[id{w.Queue, w.Partition, w.Offset}] = w
	}
	seen := map[id]string{}
	objects := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(s3dir, s3Bucket), path)
		key := filepath.ToSlash(rel)
		if strings.HasPrefix(key, c.ID()+"/_queen/") {
			return nil
		}
		pk, err := keys.Parse(key)
		if err != nil {
			return err
		}
		if pk.Kind != lakeformat.KindData {
			return fmt.Errorf("%s: a %v object outside _queen/", key, pk.Kind)
		}
		if pk.Format != format || (format == lakeformat.JSONL && pk.Codec != codec) || pk.Hour != (c.Align == "hour") ||
			(pk.Part != nil) != (c.Layout == "per-partition") {
			return fmt.Errorf("%s: not an object of lake %s", key, c.ID())
		}
		objects++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		recs, err := lakeformat.Decode(data, format, codec)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if format == lakeformat.Parquet {
			pf, err := lakeformat.DecodeParquet(data)
			if err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			if pf.Tenant != c.tenant() || pf.Queue != pk.Window.Queue {
				return fmt.Errorf("%s: footer names tenant %q queue %q", key, pf.Tenant, pf.Queue)
			}
		}
		for _, r := range recs {
			k := id{pk.Window.Queue, r.Partition, r.Offset}
			w, ok := wantBy[k]
			switch {
			case !ok:
				return fmt.Errorf("%s: a record nobody pushed: %s/%s/%d", key, k.queue, k.partition, k.offset)
			case seen[k] != "":
				return fmt.Errorf("%s: %s/%s/%d is also in %s", key, k.queue, k.partition, k.offset, seen[k])
			case pk.Window.Tenant != c.tenant():
				return fmt.Errorf("%s: tenant %q", key, pk.Window.Tenant)
			case r.TransactionID != w.TransactionID || r.Ts != w.TsUs:
				return fmt.Errorf("%s: %s/%s/%d is %q at %d, want %q at %d", key, k.queue, k.partition, k.offset,
					r.TransactionID, r.Ts, w.TransactionID, w.TsUs)
			case !strings.Contains(key, "/dt="+w.Dt+"/") || (c.Align == "hour" && !strings.Contains(key, "/hour="+w.Hour+"/")):
				return fmt.Errorf("%s: holds %s/%s/%d of %s hour %s", key, k.queue, k.partition, k.offset, w.Dt, w.Hour)
			}
			got, exp := string(r.Payload), w.PayloadParquet
			if format == lakeformat.JSONL {
				// The decoder gives null as empty; the line held null.
				exp = w.PayloadJSONL
				if got == "" {
					got = "null"
				}
				if exp == nil {
					exp = ptr("null")
				}
			}
			if exp == nil && got != "" || exp != nil && got != *exp {
				return fmt.Errorf("%s: %s/%s/%d payload %q, want %v", key, k.queue, k.partition, k.offset, got, deref(exp))
			}
			seen[k] = key
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("lake %s: %w", c.ID(), err)
	}
	if len(seen) != len(want) {
		var missing []string
		for k := range wantBy {
			if seen[k] == "" && len(missing) < 5 {
				missing = append(missing, fmt.Sprintf("%s/%s/%d", k.queue, k.partition, k.offset))
			}
		}
		return 0, fmt.Errorf("lake %s holds %d records of %d; missing %v", c.ID(), len(seen), len(want), missing)
	}
	return objects, nil
}

func ptr(s string) *string { return &s }

func deref(s *string) string {
	if s == nil {
		return "<null>"
	}
	return fmt.Sprintf("%q", *s)
}
