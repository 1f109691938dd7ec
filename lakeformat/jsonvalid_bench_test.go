package lakeformat

import (
	"encoding/json"
	"testing"
)

var benchPayload = []byte(`{"order":123456,"customer":"cust-4242","status":"shipped","total":4242.42,"items":[{"sku":"SKU-12345","qty":3}],"note":"lorem ipsum dolor sit amet consectetur adipi"}`)

func BenchmarkValidJSON(b *testing.B) {
	b.SetBytes(int64(len(benchPayload)))
	for b.Loop() {
		if !validJSON(benchPayload) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkStdlibValid(b *testing.B) {
	b.SetBytes(int64(len(benchPayload)))
	for b.Loop() {
		if !json.Valid(benchPayload) {
			b.Fatal("invalid")
		}
	}
}

func BenchmarkAppendJSONString(b *testing.B) {
	s := "01a1007b-855d-7001-8107-adfdabd3e51c"
	b.SetBytes(int64(len(s)))
	var dst []byte
	for b.Loop() {
		dst = appendJSONString(dst[:0], s)
	}
}
