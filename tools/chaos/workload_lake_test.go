package chaos

import (
	"strings"
	"testing"

	"github.com/queen-mq/queen-go/tools/lake"
)

// TestLakeAnomalies: every problem of a Verify report is an anomaly named
// after its check, and the problems only counted are one more.
func TestLakeAnomalies(t *testing.T) {
	r := lake.Report{Problems: []lake.Problem{{Check: lake.CheckDuplicate, K: 3, Msg: "p0 offset 7 also in window 2"},
		{Check: lake.CheckMissing, Msg: "p1 offsets 4..9"}}, Dropped: 2}
	got := lakeAnomalies(r)
	if len(got) != 3 || got[0].Kind != "lake-duplicate" || got[1].Kind != "lake-missing" || got[2].Kind != "lake-more" {
		t.Fatalf("anomalies %v", got)
	}
	if !strings.Contains(got[0].Detail, "k=3") || !strings.Contains(got[2].Detail, "2 more") {
		t.Errorf("details %q, %q", got[0].Detail, got[2].Detail)
	}
	if a := lakeAnomalies(lake.Report{}); len(a) != 0 {
		t.Errorf("a clean report gave %v", a)
	}
}

// TestFindVersitygwMissing: with no binary anywhere the error names what
// it tried and that `make tools` installs it; a QUEEN_CHAOS_VERSITYGW that
// names no file is an error that names the variable.
func TestFindVersitygwMissing(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("PATH", t.TempDir())
	t.Setenv(EnvVersitygw, "")
	_, err := findVersitygw()
	if err == nil || !strings.Contains(err.Error(), "make tools") || !strings.Contains(err.Error(), "versitygw") {
		t.Fatalf("err %v", err)
	}
	t.Setenv(EnvVersitygw, "/nonexistent/versitygw")
	if _, err := findVersitygw(); err == nil || !strings.Contains(err.Error(), EnvVersitygw) {
		t.Fatalf("err %v", err)
	}
}

// TestEnvValue: the last of a repeated name wins, as for exec.
func TestEnvValue(t *testing.T) {
	env := []string{"A=1", "QUEEN_S3_BUCKET=x", "B=", "QUEEN_S3_BUCKET=lake=y"}
	if v := envValue(env, "QUEEN_S3_BUCKET"); v != "lake=y" {
		t.Errorf("QUEEN_S3_BUCKET %q", v)
	}
	if v := envValue(env, "C"); v != "" {
		t.Errorf("C %q", v)
	}
}
