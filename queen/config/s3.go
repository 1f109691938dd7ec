package config

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/queen-mq/queen-go/s3sink"
)

// S3 is what the QUEEN_S3_* environment says of the embedded S3 sink
// (SINK-CONFIG.md §1, §2): the settings the sink takes, as s3sink.ParseEnv
// read them from the variables' text.
type S3 struct {
	// Embedded is QUEEN_S3_EMBEDDED: off, nothing else was read and
	// nothing of the sink runs.
	Embedded bool
	// Sink is the default tenant's sink; nil when QUEEN_S3_QUEUES is unset,
	// and the node runs only control-plane sinks.
	Sink *s3sink.Settings
	// Node is shared by every sink of the node.
	Node s3sink.NodeSettings
	// Warnings are logged at boot, which goes on: at most one, naming the
	// 1.5 standalone variables that are set and ignored.
	Warnings []string
}

// s3Embedded switches the sink on; nothing else of QUEEN_S3_* is read
// while it is off.
const s3Embedded = "QUEEN_S3_EMBEDDED"

// s3Ignored are the 1.5 standalone variables named in one warning.
var s3Ignored = []string{"QUEEN_S3_LISTEN", "QUEEN_S3_LOG_FORMAT"}

// LoadS3 reads every QUEEN_S3_* variable once through getenv (os.Getenv in
// the binary), for node nodeID on host hostname (Config.Hostname), and has
// the sink check them (s3sink.ParseEnv).
//
// A blank value counts as unset. With QUEEN_S3_EMBEDDED off nothing else
// is read or checked. Otherwise the first refusal stops the boot: a
// *BootError whose Line is what the broker prints, in the context
// QUEEN_S3_EMBEDDED=true (or broker, for a QUEEN_S3_EMBEDDED that is not
// a boolean).
func LoadS3(getenv func(string) string, nodeID uint64, hostname string) (*S3, error) {
	return loadS3(getenv, nodeID, hostname, runtime.NumCPU())
}

func loadS3(getenv func(string) string, nodeID uint64, hostname string, cores int) (*S3, error) {
	l := &loader{get: getenv, context: "broker"}
	s := l.raw(s3Embedded)
	if s == "" {
		return &S3{}, nil
	}
	on, ok := parseBool(s)
	if !ok {
		return nil, &BootError{Context: "broker", Var: s3Embedded,
			Msg: fmt.Sprintf("%s=%s is not a boolean. It is `true` or `false`", s3Embedded, oneLine(s))}
	}
	if !on {
		return &S3{}, nil
	}
	vars := map[string]string{}
	for _, name := range s3sink.EnvVars() {
		vars[name] = l.raw(name)
	}
	sink, node, err := s3sink.ParseEnv(vars, nodeID, hostname, cores)
	if err != nil {
		var ce *s3sink.ConfigError
		if errors.As(err, &ce) {
			return nil, &BootError{Context: s3Embedded + "=true", Var: ce.Var, Msg: ce.Msg}
		}
		return nil, err
	}
	c := &S3{Embedded: true, Sink: sink, Node: node}
	var ignored []string
	for _, name := range s3Ignored {
		if l.raw(name) != "" {
			ignored = append(ignored, name)
		}
	}
	if len(ignored) == 1 {
		c.Warnings = append(c.Warnings, ignored[0]+" is set and ignored: it configured the standalone 1.5 sink, "+
			"and the sink inside the broker opens no port and logs through the broker")
	} else if len(ignored) > 1 {
		c.Warnings = append(c.Warnings, strings.Join(ignored, " and ")+" are set and ignored: they configured the standalone 1.5 sink, "+
			"and the sink inside the broker opens no port and logs through the broker")
	}
	return c, nil
}

// oneLine quotes a value holding a control character, so that the
// sentence naming it stays one line.
func oneLine(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError || unicode.IsControl(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// LogLine returns the one line the boot logs: every setting the node's
// sink runs with, node-wide ones first, in key=value form. It never holds
// the secret key, and shows the KMS key id by its last 4 characters
// (s3sink.Settings.String).
func (c *S3) LogLine() string {
	if !c.Embedded {
		return "embedded=false"
	}
	line := "embedded=true " + c.Node.String() + " tenant=" + s3sink.DefaultTenant
	if c.Sink == nil {
		return line + ` envSink="off: QUEEN_S3_QUEUES is unset, control-plane sinks only"`
	}
	return line + " " + c.Sink.String()
}
