package prompts

import (
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The task names are listed once (TaskNames); the settings map, and the database's check on
// recorded usage, must name the same uses.
func TestTaskNamesMatchSettingsAndSchema(t *testing.T) {
	keys := make([]string, 0, len(Tasks))
	for k := range Tasks {
		keys = append(keys, k)
	}
	names := slices.Clone(TaskNames)
	sort.Strings(keys)
	sort.Strings(names)
	if !slices.Equal(keys, names) {
		t.Fatalf("Tasks has %v, TaskNames %v", keys, names)
	}
	sql, err := os.ReadFile("../../../../sql/app/005_ai_gateway.sql")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`task text not null check \(task in \(([^)]*)\)\)`).FindSubmatch(sql)
	if m == nil {
		t.Fatal("no task check in 005_ai_gateway.sql")
	}
	var inSQL []string
	for _, q := range strings.Split(string(m[1]), ",") {
		inSQL = append(inSQL, strings.Trim(strings.TrimSpace(q), "'"))
	}
	if !slices.Equal(inSQL, TaskNames) {
		t.Fatalf("the usage table's check lists %v, TaskNames %v", inSQL, TaskNames)
	}
}

// The spec's bands (section 9): Excelent 90-100, Foarte bine 80-89, Bine 70-79,
// Satisfăcător 60-69, Nesatisfăcător under 60.
func TestBand(t *testing.T) {
	for total, want := range map[int]string{100: "Excelent", 90: "Excelent", 89: "Foarte bine", 80: "Foarte bine", 79: "Bine", 70: "Bine", 69: "Satisfăcător", 60: "Satisfăcător", 59: "Nesatisfăcător", 0: "Nesatisfăcător"} {
		if got := Band(total); got != want {
			t.Errorf("Band(%d) = %q, want %q", total, got, want)
		}
	}
}
