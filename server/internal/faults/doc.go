// Package faults holds the fault tests of the whole server (issue #21): students driven
// by scripts/load/sim against a real casus server process while PostgreSQL restarts,
// the AI upstream fails in every way it can, or the server is killed mid-write. The
// tests check that the server recovers by itself, that every accepted submission keeps
// its text, that nothing is half-saved and that no grade is recorded twice, and print
// what happened (requests, failures in the fault window, recovery time).
package faults
