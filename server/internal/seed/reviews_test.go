package seed

import "testing"

// TestReviewRecords validates every record file of sql/seed/reviews/ (README.md there):
// named after a kind and domain, each entry for an item of that file, verdict sign|fix,
// and a reader, date, hash and reasons.
func TestReviewRecords(t *testing.T) {
	items, err := ItemHashes()
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 6 {
		t.Fatalf("item files %d, want cases and grile of three domains", len(items))
	}
	_, problems := Readings(items)
	for _, p := range problems {
		t.Error(p)
	}
}
