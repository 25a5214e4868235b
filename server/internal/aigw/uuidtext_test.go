package aigw

import "testing"

func TestCanonicalUUID(t *testing.T) {
	for s, want := range map[string]bool{
		"0f8fad5b-d9cb-469f-a165-70867728950e":   true,
		"0F8FAD5B-D9CB-469F-A165-70867728950E":   false, // id::text is lowercase
		"0f8fad5bd9cb469fa16570867728950e":       false,
		"{0f8fad5b-d9cb-469f-a165-70867728950e}": false,
		"0f8fad5b-d9cb-469f-a165-70867728950":    false,
		"0f8fad5b-d9cb-469f-a165-70867728950g":   false,
		"0f8fad5b-d9cb-469f-a165_70867728950e":   false,
		"":                                       false,
	} {
		if got := canonicalUUID(s); got != want {
			t.Errorf("canonicalUUID(%q) = %v, want %v", s, got, want)
		}
	}
}
