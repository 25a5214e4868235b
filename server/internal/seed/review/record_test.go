package review

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseRecordValidatesEntries(t *testing.T) {
	items := map[string]string{"GCIV001": "d96f134e63dd8a32"}
	good := `- code: GCIV001
  verdict: sign
  reader: "reader-1"
  date: 2026-11-28
  hash: d96f134e63dd8a32
  reasons: "Cheia b, c: art. 6 C.civ."
`
	readings, problems := ParseRecord(RecordFile{Name: "grile-civil.yaml", Data: []byte(good), Items: items})
	if len(problems) != 0 {
		t.Fatalf("good record: %v", problems)
	}
	want := []Reading{{Code: "GCIV001", Verdict: "sign", Reader: "reader-1", Date: "2026-11-28", Hash: "d96f134e63dd8a32", Reasons: "Cheia b, c: art. 6 C.civ."}}
	if !reflect.DeepEqual(readings, want) {
		t.Fatalf("readings %+v, want %+v", readings, want)
	}
	for _, tc := range []struct {
		name, file, data, want string
	}{
		{"bad file name", "civil.yaml", good, "is named"},
		{"unknown code", "grile-civil.yaml", strings.Replace(good, "GCIV001", "GCIV999", 1), "no item with this code"},
		{"bad verdict", "grile-civil.yaml", strings.Replace(good, "verdict: sign", "verdict: ok", 1), `verdict "ok"`},
		{"empty reader", "grile-civil.yaml", strings.Replace(good, `"reader-1"`, `""`, 1), "reader is empty"},
		{"empty reasons", "grile-civil.yaml", strings.Replace(good, `"Cheia b, c: art. 6 C.civ."`, `" "`, 1), "reasons is empty"},
		{"missing date", "grile-civil.yaml", strings.Replace(good, "  date: 2026-11-28\n", "", 1), "date"},
		{"bad date", "grile-civil.yaml", strings.Replace(good, "2026-11-28", "28.11.2026", 1), "date"},
		{"bad hash", "grile-civil.yaml", strings.Replace(good, "d96f134e63dd8a32", "d96f", 1), "hash"},
		{"unknown key", "grile-civil.yaml", good + "  note: x\n", "not found"},
	} {
		_, problems := ParseRecord(RecordFile{Name: tc.file, Data: []byte(tc.data), Items: items})
		if len(problems) == 0 || !strings.Contains(strings.Join(problems, "\n"), tc.want) {
			t.Errorf("%s: problems %v, want one containing %q", tc.name, problems, tc.want)
		}
	}
}

func TestUnsignedNeedsASignForTheCurrentHash(t *testing.T) {
	items := map[string]string{"A": "1111111111111111", "B": "2222222222222222", "C": "3333333333333333", "D": "4444444444444444", "E": "5555555555555555"}
	readings := []Reading{
		{Code: "A", Verdict: Sign, Hash: "1111111111111111"},                                                      // signed as it stands
		{Code: "B", Verdict: Sign, Hash: "0000000000000000"},                                                      // signed, then changed
		{Code: "C", Verdict: Fix, Hash: "3333333333333333"},                                                       // needs a fix
		{Code: "D", Verdict: Sign, Hash: "4444444444444444"}, {Code: "D", Verdict: Fix, Hash: "4444444444444444"}, // a later reader disagrees
		{Code: "E", Verdict: Fix, Hash: "5555555555555555"}, {Code: "E", Verdict: Sign, Hash: "5555555555555555"}, // an earlier reader disagrees
	}
	if got, want := Unsigned(items, readings), []string{"B", "C", "D", "E"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Unsigned = %v, want %v", got, want)
	}
}
