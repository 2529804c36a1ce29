// Package inspect turns an Analysis into the report `armature inspect`
// prints: as JSON (a stable shape other tools read) or as a table.
package inspect
