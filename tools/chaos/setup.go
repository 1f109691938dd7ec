package chaos

// clusterEnvs are the workloads that need something beside the cluster
// before its nodes start (a bucket for the sink): each starts it for a
// run whose data is under dir and returns the environment variables
// (NAME=value) every node starts with, and how to stop what it started.
// Run calls it before StartCluster and stop after the cluster stopped.
var clusterEnvs = map[string]func(dir string) (env []string, stop func(), err error){
	WorkloadLake: lakeClusterEnv,
}

// clusterEnv is the named workload's environment for a run under dir:
// none, and nothing to stop, for a workload without setup.
func clusterEnv(workload, dir string) (env []string, stop func(), err error) {
	setup, ok := clusterEnvs[workload]
	if !ok {
		return nil, func() {}, nil
	}
	return setup(dir)
}
