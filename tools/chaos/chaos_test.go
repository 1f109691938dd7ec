package chaos

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// buildQueen builds the broker binary into the test's temporary
// directory.
func buildQueen(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "queen")
	out, err := exec.Command("go", "build", "-o", bin, "github.com/queen-mq/queen-go/queen/cmd/queen").CombinedOutput()
	if err != nil {
		t.Fatalf("go build queen: %v\n%s", err, out)
	}
	return bin
}

// TestSlice is the campaign's slice CI runs: on three nodes, one run of
// the log workload for each network fault (the leader cut off from the
// others; what the leader sends dropped, not what it hears) and one of
// the KV registers under partitions, one of the log across killed nodes
// started again with their clocks jumped, one of the log across bit flips
// (a refusing node replaced under a fresh id), each required to strike at least
// once, answer ops, and leave no anomaly in the history. `make chaos`
// runs the full campaign.
func TestSlice(t *testing.T) {
	bin := buildQueen(t)
	for _, run := range []struct{ workload, fault string }{{WorkloadLog, FaultPartition}, {WorkloadLog, FaultOneWay}, {WorkloadKV, FaultPartition},
		{WorkloadLog, FaultClock}, {WorkloadLog, FaultBitFlip}} {
		t.Run(run.workload+"/"+run.fault, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			res, err := Run(ctx, Config{Bin: bin, Dir: t.TempDir(), Nodes: 3, Seed: 1, Duration: 12 * time.Second, Fault: run.fault,
				Workload: run.workload, Logf: t.Logf})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d ops, %d answered, %d faults", res.Ops, res.Acked, res.Faults)
			if res.Faults == 0 || res.Acked == 0 {
				t.Fatalf("the run struck %d faults and answered %d ops: it tested nothing", res.Faults, res.Acked)
			}
			for _, a := range res.Anomalies {
				t.Errorf("%s: %s", a.Kind, a.Detail)
			}
		})
	}
}
