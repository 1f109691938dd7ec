// Package config reads the broker's configuration from the environment,
// once, at boot: defaults first, then each value checked against its range.
// A bad value stops the boot with one line that names the variable, the
// value and what is allowed (BootError.Line):
//
//	ERROR boot: FATAL: broker: PORT=70000 is outside 1..=65535. It is the HTTP port the broker listens on
//
// Blank values count as unset; enumerations and booleans ignore case.
package config
