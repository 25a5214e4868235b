// Package domaindb holds the SQL-level tests of the domain schema (sql/app 001–003):
// constraints, row-level security per role, the grading guard and every RPC, run against a
// real PostgreSQL through db.AsRole exactly as the data API switches roles. The schema itself
// lives in the migrations; this package has no runtime code.
package domaindb
