package lakeformat

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

func sampleCheckpoint() *Checkpoint {
	return &Checkpoint{K: 7, TEnd: 1791009458377855, Positions: []Position{
		{Partition: "A", NextOffset: 0},
		{Partition: "cust-1", NextOffset: 2, PartitionID: "01a1007b-855d-7001-8107-adfdabd3e51c"},
		{Partition: "cust-2", NextOffset: 1},
		{Partition: "ü<&>", NextOffset: 1 << 62},
	}}
}

// checkpointZstd compresses text as Encode does, for hand-made inputs.
func checkpointZstd(t testing.TB, text string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw, err := newCompressor(&buf, Zstd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(zw, text); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestCheckpointRoundTrip(t *testing.T) {
	for name, c := range map[string]*Checkpoint{
		"positions": sampleCheckpoint(),
		"empty":     {K: 1, TEnd: -3},
		"max":       {K: 1<<64 - 1, TEnd: 1<<63 - 1, Positions: []Position{{Partition: "p", NextOffset: 1<<63 - 1}}},
	} {
		t.Run(name, func(t *testing.T) { assertRoundTrip(t, c, DecodeCheckpoint) })
	}
}

func TestCheckpointEncodeText(t *testing.T) {
	b, err := sampleCheckpoint().Encode()
	if err != nil {
		t.Fatal(err)
	}
	zr, err := newDecompressor(bytes.NewReader(b), Zstd)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	text, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"k":7,"tEnd":1791009458377855,"positions":[["A",0],` +
		`["cust-1",2,"01a1007b-855d-7001-8107-adfdabd3e51c"],["cust-2",1],["ü<&>",4611686018427387904]]}`
	if string(text) != want {
		t.Fatalf("checkpoint JSON\n got %s\nwant %s", text, want)
	}
	b, err = (&Checkpoint{K: 1}).Encode()
	if err != nil {
		t.Fatal(err)
	}
	if c, err := DecodeCheckpoint(b); err != nil || c.Positions != nil {
		t.Fatalf("empty checkpoint: %+v, %v", c, err)
	}
	if !bytes.Equal(b, checkpointZstd(t, `{"k":1,"tEnd":0,"positions":[]}`)) {
		t.Fatal("an empty checkpoint is not {\"k\":1,\"tEnd\":0,\"positions\":[]}")
	}
}

func TestCheckpointDeterministic(t *testing.T) {
	first, err := sampleCheckpoint().Encode()
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20; i++ {
		b, err := sampleCheckpoint().Encode()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, first) {
			t.Fatalf("encode %d differs:\n%x\n%x", i, b, first)
		}
	}
}

func TestCheckpointEncodeRefusals(t *testing.T) {
	for _, c := range []struct {
		want   string
		change func(c *Checkpoint)
	}{
		{"k 0", func(c *Checkpoint) { c.K = 0 }},
		{`positions[2]: partition "cust-1" follows "cust-1"`, func(c *Checkpoint) { c.Positions[2].Partition = "cust-1" }},
		{`positions[1]: partition "B" follows "cust-1"`, func(c *Checkpoint) {
			c.Positions[0], c.Positions[1] = c.Positions[1], c.Positions[0]
			c.Positions[1].Partition = "B"
		}},
		{`positions[3]: partition "a" follows "cust-2"`, func(c *Checkpoint) { c.Positions[3].Partition = "a" }},
		{`nextOffset -1 is negative`, func(c *Checkpoint) { c.Positions[1].NextOffset = -1 }},
		{`partition "" is empty`, func(c *Checkpoint) { c.Positions[0].Partition = "" }},
		{`partition "\xff" is empty or not UTF-8`, func(c *Checkpoint) { c.Positions[3].Partition = "\xff" }},
		{`partitionId "\xfe" is not UTF-8`, func(c *Checkpoint) { c.Positions[2].PartitionID = "\xfe" }},
	} {
		cp := sampleCheckpoint()
		c.change(cp)
		b, err := cp.Encode()
		if !errors.Is(err, ErrBadCheckpoint) || !strings.Contains(err.Error(), c.want) || b != nil {
			t.Errorf("%s: Encode = %q, %v", c.want, b, err)
		}
	}
}

func TestDecodeCheckpointRefusals(t *testing.T) {
	good, err := sampleCheckpoint().Encode()
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string][]byte{
		"nil":                     nil,
		"not zstd":                []byte(`{"k":1,"tEnd":0,"positions":[]}`),
		"garbage after the frame": append(append([]byte{}, good...), 0x01, 0x02, 0x03, 0x04, 0x05),
	}
	for n := 0; n < len(good); n++ {
		inputs[fmt.Sprintf("truncated to %d bytes", n)] = good[:n]
	}
	for i := range good {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			b := append([]byte{}, good...)
			b[i] ^= x
			inputs[fmt.Sprintf("byte %d xor %#x", i, x)] = b
		}
	}
	for _, text := range []string{
		``, `null`, `[]`, `{}`, `{"k":1,"tEnd":0}`, `{"k":1,"positions":[]}`, `{"tEnd":0,"positions":[]}`,
		`{"K":1,"tEnd":0,"positions":[]}`, `{"k":0,"tEnd":0,"positions":[]}`, `{"k":-1,"tEnd":0,"positions":[]}`,
		`{"k":1,"tEnd":0.5,"positions":[]}`, `{"k":1,"tEnd":0,"positions":null}`, `{"k":1,"tEnd":0,"positions":{}}`,
		`{"k":1,"tEnd":0,"positions":[["p"]]}`, `{"k":1,"tEnd":0,"positions":[["p",1,"id","x"]]}`,
		`{"k":1,"tEnd":0,"positions":[[]]}`, `{"k":1,"tEnd":0,"positions":[null]}`, `{"k":1,"tEnd":0,"positions":["p"]}`,
		`{"k":1,"tEnd":0,"positions":[["p","1"]]}`, `{"k":1,"tEnd":0,"positions":[[1,1]]}`,
		`{"k":1,"tEnd":0,"positions":[["p",null]]}`, `{"k":1,"tEnd":0,"positions":[["p",1,null]]}`,
		`{"k":1,"tEnd":0,"positions":[["p",1,7]]}`, `{"k":1,"tEnd":0,"positions":[["p",-1]]}`,
		`{"k":1,"tEnd":0,"positions":[["q",1],["p",1]]}`, `{"k":1,"tEnd":0,"positions":[["p",1],["p",2]]}`,
		`{"k":1,"tEnd":0,"positions":[["",1]]}`, `{"k":1,"tEnd":0,"positions":[]} x`,
	} {
		inputs["text "+text] = checkpointZstd(t, text)
	}
	for name, b := range inputs {
		c, err := DecodeCheckpoint(b)
		if err == nil {
			if strings.HasPrefix(name, "byte") && reflect.DeepEqual(c, sampleCheckpoint()) {
				continue // a flipped bit in an unchecked spot of the frame header
			}
			t.Errorf("%s: DecodeCheckpoint = %+v, want an error", name, c)
		} else if !errors.Is(err, ErrBadCheckpoint) {
			t.Errorf("%s: error %v does not wrap ErrBadCheckpoint", name, err)
		}
	}
}

func TestDecodeCheckpointLenient(t *testing.T) {
	// Unknown members are ignored, and a 3-element position with an empty
	// id decodes like a 2-element one.
	b := checkpointZstd(t, ` {"v":2, "tEnd":5, "k":3, "positions":[["a",1,""], ["b",2,"x"]], "k2":null} `)
	c, err := DecodeCheckpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	want := &Checkpoint{K: 3, TEnd: 5, Positions: []Position{{Partition: "a", NextOffset: 1}, {Partition: "b", NextOffset: 2, PartitionID: "x"}}}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("got %+v, want %+v", c, want)
	}
}
