package chaos

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/queen-mq/queen-go/tools/chaos/lossyfs"
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

// TestSlice is the campaign's slice CI runs: one run of the log workload
// for each network fault (five nodes cut in two; on three, what the
// leader sends dropped, not what it hears), one of the KV registers under
// partitions, one of the log across killed nodes started again with their
// clocks jumped, one each of the KV and the log across power losses that
// drop what was not fsynced, and one of the log across bit flips (a
// refusing node replaced under a fresh id), and one of the transactions
// across killed nodes; each is required to strike at least
// once, answer ops, and leave no anomaly in the history. `make chaos`
// runs the full campaign.
func TestSlice(t *testing.T) {
	bin := buildQueen(t)
	for _, run := range []struct {
		workload, fault string
		nodes           int
	}{{WorkloadLog, FaultPartition, 5}, {WorkloadLog, FaultOneWay, 3}, {WorkloadKV, FaultPartition, 3}, {WorkloadLog, FaultClock, 3},
		{WorkloadKV, FaultPowerLoss, 3}, {WorkloadLog, FaultPowerLoss, 3}, {WorkloadLog, FaultBitFlip, 3},
		{WorkloadTxn, FaultKill, 3}} {
		t.Run(run.workload+"/"+run.fault, func(t *testing.T) {
			if run.fault == FaultPowerLoss {
				if err := lossyfs.Available(); err != nil {
					t.Skipf("power loss needs a lossyfs mount: %v", err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			res, err := Run(ctx, Config{Bin: bin, Dir: t.TempDir(), Nodes: run.nodes, Seed: 1, Duration: 12 * time.Second, Fault: run.fault,
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
