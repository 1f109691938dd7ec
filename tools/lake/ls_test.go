package lake_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/s3sink/s3test"
	"github.com/queen-mq/queen-go/tools/lake"
)

func TestList(t *testing.T) {
	srv := s3test.Versitygw(t)
	b := builtBucket(t, srv, newFixture())
	b.put(b.manifestKey(7), []byte("{}"))
	ws, err := lake.List(context.Background(), b.config())
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 7 || ws[6].Err == nil || ws[6].Manifest != nil {
		t.Fatalf("windows %+v: want 7, the last unreadable", ws)
	}
	var out bytes.Buffer
	if err := lake.WriteList(&out, ws); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 9 {
		t.Fatalf("%d lines, want a header, 7 windows and a total:\n%s", len(lines), out.String())
	}
	if got := strings.Fields(lines[0]); fmt.Sprint(got) != "[K TSTART TEND RECORDS BYTES OBJECTS LOST]" {
		t.Errorf("header %q", lines[0])
	}
	var total, size, objects int64
	for k := uint64(1); k <= 6; k++ {
		m := b.built[k]
		lost := "-"
		if k == 1 {
			lost = "cust-3:0-1"
		}
		want := fmt.Sprintf("[%d %s %s %d %d %d %s]", k, isoTs(m.TStart), isoTs(m.TEnd), m.Records, m.Bytes, len(m.Objects), lost)
		if got := fmt.Sprint(strings.Fields(lines[k])); got != want {
			t.Errorf("window %d: %s, want %s", k, got, want)
		}
		total, size, objects = total+m.Records, size+m.Bytes, objects+int64(len(m.Objects))
	}
	if got := strings.Fields(lines[7]); len(got) < 2 || got[0] != "7" || got[1] != "error:" || !strings.Contains(lines[7], "bad manifest") {
		t.Errorf("unreadable manifest: %q", lines[7])
	}
	if got, want := fmt.Sprint(strings.Fields(lines[8])), fmt.Sprintf("[total 6 windows %d %d %d 2 lost]", total, size, objects); got != want {
		t.Errorf("total: %s, want %s", got, want)
	}
	for i, line := range lines[1:] { // columns aligned: the records column starts where RECORDS does
		if col := strings.Index(lines[0], "RECORDS"); i != 6 && (len(line) <= col || line[col-1] != ' ' || line[col] == ' ') {
			t.Errorf("line %d is not aligned with the header: %q", i+1, line)
		}
	}
	if t.Failed() || testing.Verbose() {
		t.Logf("\n%s", out.String())
	}
}
