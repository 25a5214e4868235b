// Package catalog reads the category catalogues shipped in sql/seed/catalog: the single
// source of truth for the sidebar tree, the generator's categories and the
// classification prompt. The seeder loads them into the database for the app.
package catalog

import (
	"fmt"
	"io/fs"

	"gopkg.in/yaml.v3"

	casussql "casus/sql"
)

// Domain is a law domain of the sidebar.
type Domain struct {
	Code       string // civil | penal | constitutional | roman
	Name       string // "Drept Civil"
	CasePrefix string // CIV | PEN | CON | "" (Drept Roman has none)
	File       string // catalogue file, "" when the domain has no categories
}

// Domains in sidebar order.
var Domains = []Domain{
	{Code: "civil", Name: "Drept Civil", CasePrefix: "CIV", File: "civil.yaml"},
	{Code: "penal", Name: "Drept Penal", CasePrefix: "PEN", File: "penal.yaml"},
	{Code: "constitutional", Name: "Drept Constitutional", CasePrefix: "CON", File: "constitutional.yaml"},
	{Code: "roman", Name: "Drept Roman"},
}

// Category is one catalogue entry.
type Category struct {
	ID            string        `yaml:"id"`
	Name          string        `yaml:"name"`
	Description   string        `yaml:"description"`
	Articles      string        `yaml:"articles"`
	ArticleRanges [][2]any      `yaml:"article_ranges"`
	Course        string        `yaml:"course"`
	Weeks         []int         `yaml:"weeks"`
	CatchAll      bool          `yaml:"catch_all"`
	Subcategories []Subcategory `yaml:"subcategories"`
	Domain        string        `yaml:"-"`
}

// Subcategory is one subcategory of a category.
type Subcategory struct {
	Name          string   `yaml:"name"`
	Articles      string   `yaml:"articles"`
	ArticleRanges [][2]any `yaml:"article_ranges"`
}

// Catalog is every domain's categories.
type Catalog struct {
	ByDomain map[string][]Category
	byID     map[string]*Category
}

// Load reads the shipped catalogues.
func Load() (*Catalog, error) {
	c := &Catalog{ByDomain: map[string][]Category{}, byID: map[string]*Category{}}
	for _, d := range Domains {
		if d.File == "" {
			continue
		}
		b, err := fs.ReadFile(casussql.Seed, "seed/catalog/"+d.File)
		if err != nil {
			return nil, err
		}
		var cats []Category
		if err := yaml.Unmarshal(b, &cats); err != nil {
			return nil, fmt.Errorf("%s: %w", d.File, err)
		}
		for i := range cats {
			cats[i].Domain = d.Code
		}
		c.ByDomain[d.Code] = cats
	}
	for _, cats := range c.ByDomain {
		for i := range cats {
			if _, dup := c.byID[cats[i].ID]; dup {
				return nil, fmt.Errorf("category id %q is used twice", cats[i].ID)
			}
			c.byID[cats[i].ID] = &cats[i]
		}
	}
	return c, nil
}

// Category returns the category with the id.
func (c *Catalog) Category(id string) (*Category, bool) {
	cat, ok := c.byID[id]
	return cat, ok
}

// HasSubcategory reports whether the category has a subcategory with exactly that name.
func (cat *Category) HasSubcategory(name string) bool {
	for _, s := range cat.Subcategories {
		if s.Name == name {
			return true
		}
	}
	return false
}

// Labels is the flat "Category (Subcategory)" list of a domain, ending with the catch-all.
func (c *Catalog) Labels(domain string) []string {
	var out []string
	var catchAll string
	for _, cat := range c.ByDomain[domain] {
		if cat.CatchAll {
			catchAll = cat.Name
			continue
		}
		for _, s := range cat.Subcategories {
			out = append(out, cat.Name+" ("+s.Name+")")
		}
	}
	if catchAll != "" {
		out = append(out, catchAll)
	}
	return out
}
