package contract

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite LIMITS.md from the tables")

// TestLimitsDoc keeps LIMITS.md equal to the tables it documents.
func TestLimitsDoc(t *testing.T) {
	want := LimitsMarkdown()
	if *update {
		if err := os.WriteFile("LIMITS.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("LIMITS.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatal("LIMITS.md differs from the tables: go test ./contract -run TestLimitsDoc -update rewrites it")
	}
}
