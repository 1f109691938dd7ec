package jwtauth

import (
	"strings"

	"github.com/queen-mq/queen-go/httpd"
)

// Level is what a token's role grants (API.md §0).
type Level uint8

// The levels, from the least to the most privileged. admin reaches every
// class; read-write every class but admin, so it holds read-only and
// write-only; read-only the reads; write-only push and timers; public
// only the public routes (a token whose role names no level).
const (
	LevelPublic Level = iota
	LevelWriteOnly
	LevelReadOnly
	LevelReadWrite
	LevelAdmin
)

var levelNames = [...]string{LevelPublic: "public", LevelWriteOnly: "write-only", LevelReadOnly: "read-only",
	LevelReadWrite: "read-write", LevelAdmin: "admin"}

func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return "unknown"
}

// Allows says whether a token of level l reaches routes of class c.
func (l Level) Allows(c httpd.Class) bool {
	switch l {
	case LevelAdmin:
		return c != httpd.ClassControlPlane
	case LevelReadWrite:
		return c != httpd.ClassAdmin && c != httpd.ClassCluster && c != httpd.ClassControlPlane
	case LevelReadOnly:
		return c == httpd.ClassPublic || c == httpd.ClassRead || c == httpd.ClassSharedRead || c == httpd.ClassNode
	case LevelWriteOnly:
		return c == httpd.ClassPublic || c == httpd.ClassPush || c == httpd.ClassTimers
	}
	return c == httpd.ClassPublic
}

// Roles are the role names that map to the levels (JWT_ROLE_ADMIN, …).
// A role no field names is the public level.
type Roles struct {
	Admin, ReadWrite, ReadOnly, WriteOnly string
}

// DefaultRoles are the product's role names.
var DefaultRoles = Roles{Admin: "admin", ReadWrite: "read-write", ReadOnly: "read-only", WriteOnly: "write-only"}

// level is the level of role name s, ok false when no role has that name.
func (r Roles) level(s string) (Level, bool) {
	switch s {
	case "":
		return LevelPublic, false
	case r.Admin:
		return LevelAdmin, true
	case r.ReadWrite:
		return LevelReadWrite, true
	case r.ReadOnly:
		return LevelReadOnly, true
	case r.WriteOnly:
		return LevelWriteOnly, true
	}
	return LevelPublic, false
}

// Principal is a verified token: its levels and subject. A role claim
// gives one level; a roles array each level its roles name, and the
// token reaches what any of them reaches (an admin role in it makes the
// token admin; read-only and write-only together reach both, but not
// what only read-write adds).
type Principal struct {
	Levels []Level
	Sub    string
}

var _ httpd.Principal = Principal{}

// Allows says whether one of the token's levels reaches class c; a token
// of no level is public.
func (p Principal) Allows(c httpd.Class) bool {
	if len(p.Levels) == 0 {
		return LevelPublic.Allows(c)
	}
	for _, l := range p.Levels {
		if l.Allows(c) {
			return true
		}
	}
	return false
}

// Subject is the token's sub ("" when it has none).
func (p Principal) Subject() string { return p.Sub }

// Tenant is "": a broker JWT names no tenant.
func (p Principal) Tenant() string { return "" }

func (p Principal) String() string {
	switch len(p.Levels) {
	case 0:
		return "a token of level public"
	case 1:
		return "a token of level " + p.Levels[0].String()
	}
	names := make([]string, len(p.Levels))
	for i, l := range p.Levels {
		names[i] = l.String()
	}
	return "a token of levels " + strings.Join(names, ", ")
}
