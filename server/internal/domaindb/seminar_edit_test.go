package domaindb

import "testing"

// App 028: the group's staff edit it, with create's messages; nobody else can.
func TestSeminarUpdateGroup(t *testing.T) {
	s := newSeminar(t)
	s.mustJoin(s.a)
	mustMsg(t, s.exec(s.a, `select public.seminar_update_group($1, 'Grupa nouă', 'UB', '2025-2026', 2)`, s.group), "PT404", "Grupa nu există")
	mustMsg(t, s.exec(s.b, `select public.seminar_update_group($1, 'Grupa nouă', 'UB', '2025-2026', 2)`, s.group), "PT404", "Grupa nu există")
	mustMsg(t, s.exec(s.mod, `select public.seminar_update_group($1, 'G', 'UB', '2025-2026', 2)`, s.group), "22023", "Numele grupei")
	mustMsg(t, s.exec(s.mod, `select public.seminar_update_group($1, 'Grupa 102', 'NU', '2025-2026', 2)`, s.group), "22023", "Alege facultatea")
	mustMsg(t, s.exec(s.mod, `select public.seminar_update_group($1, 'Grupa 102', 'UB', '2025-2025', 2)`, s.group), "22023", "Anul universitar")
	mustMsg(t, s.exec(s.mod, `select public.seminar_update_group($1, 'Grupa 102', 'UB', '2025-2026', 0)`, s.group), "22023", "Semestrul")
	mustMsg(t, s.exec(s.anon, `select public.seminar_update_group($1, 'Grupa 102', 'UB', '2025-2026', 2)`, s.group), "42501", "")
	if got := s.str(s.mod, `select name || '|' || university_code || '|' || academic_year || '|' || semester
		from public.seminar_update_group($1, ' Grupa 102 ', 'UBB', '2026-2027', 2)`, s.group); got != "Grupa 102|UBB|2026-2027|2" {
		t.Fatalf("updated group: %s", got)
	}
	// The member reads the new name.
	if got := s.str(s.a, `select name from public.seminar_groups where id = $1`, s.group); got != "Grupa 102" {
		t.Fatalf("member reads %q", got)
	}
}
