package catalog

import (
	"strings"
	"testing"
)

func TestShippedCatalogues(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"civil": 38, "penal": 22, "constitutional": 9}
	for domain, n := range want {
		cats := c.ByDomain[domain]
		if len(cats) != n+1 {
			t.Errorf("%s: %d categories, want %d plus Altele", domain, len(cats), n)
			continue
		}
		last := cats[len(cats)-1]
		if !last.CatchAll || last.Name != "Altele" || len(last.Subcategories) != 0 {
			t.Errorf("%s: last category %+v is not the Altele catch-all", domain, last.Name)
		}
		for _, cat := range cats[:n] {
			if cat.CatchAll || len(cat.Subcategories) < 2 || cat.Name == "" {
				t.Errorf("%s/%s: %d subcategories", domain, cat.ID, len(cat.Subcategories))
			}
		}
		labels := c.Labels(domain)
		if labels[len(labels)-1] != "Altele" || !strings.Contains(labels[0], " (") {
			t.Errorf("%s labels: first %q last %q", domain, labels[0], labels[len(labels)-1])
		}
	}
	cat, ok := c.Category("legea_civila")
	if !ok || cat.Domain != "civil" || !cat.HasSubcategory("Izvoarele dreptului civil") || cat.HasSubcategory("Nimic") {
		t.Fatalf("legea_civila: %+v", cat)
	}
	if len(c.ByDomain["roman"]) != 0 {
		t.Error("Drept Roman has no categories")
	}
}
