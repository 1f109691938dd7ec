// Package script runs the data-driven script files of a state machine's
// tests (testdata/scripts/*.txt) for the modules that do not require
// cockroachdb/datadriven (kvstore, raftlog's queue log), in the same
// format as the families' scripts in queen:
//
//   - '#' comments and blank lines stand between cases;
//   - a case is a command line "<cmd> key=value…", its input lines, a
//     "----" line and the expected output, which ends at a blank line or
//     the end of the file.
//
// Clock, Base, Time and Secs are the scripts' broker clock: at=<seconds>
// after Base is an entry's stamp, and stamps print as seconds after it.
//
// # Invariants
//
//   - An output is whole lines, none blank: Run fails a case otherwise,
//     so a file always parses back into the cases it was written from.
//   - With -rewrite, Run writes the outputs the run got back into the
//     files, comments and blank lines kept as they were; read the diff
//     before committing it.
//
// # Usage
//
//	func TestScripts(t *testing.T) {
//		script.Run(t, "testdata/scripts", func(t *testing.T) func(*testing.T, *script.Case) string {
//			n := startNode(t)
//			return n.run // answers each case with its output
//		})
//	}
package script
