package domaindb

import (
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func (f *fixture) scalar(w who, dest any, sql string, args ...any) error {
	return f.as(w, func(tx pgx.Tx) error { return tx.QueryRow(f.ctx, sql, args...).Scan(dest) })
}

func TestCreateUserProfile(t *testing.T) {
	f := newFixture(t)
	call := func(w who, id, email, name, username, uni string, uniName any) error {
		return f.as(w, func(tx pgx.Tx) error {
			_, err := tx.Exec(f.ctx, `select public.create_user_profile($1, $2, $3, $4, $5, 'Private', $6)`, id, email, name, username, uni, uniName)
			return err
		})
	}
	fresh := f.authUser("nou@example.ro", 0)

	t.Run("wrong e-mail for the id", func(t *testing.T) {
		mustState(t, call(f.anon, fresh, "altcineva@example.ro", "Ion Pop", "ion_pop", "UB", nil), "42501")
	})
	t.Run("signed-in user for someone else", func(t *testing.T) {
		mustState(t, call(f.a, fresh, "nou@example.ro", "Ion Pop", "ion_pop", "UB", nil), "42501")
	})
	t.Run("old sign-up as anon", func(t *testing.T) {
		old := f.authUser("vechi@example.ro", 2*time.Hour)
		mustState(t, call(f.anon, old, "vechi@example.ro", "Ion Pop", "vechi", "UB", nil), "42501")
	})
	t.Run("overwrite an existing profile", func(t *testing.T) {
		mustState(t, call(f.anon, f.a.id, "a@example.ro", "Hacker", "hacker", "UB", nil), "23505")
		var name string
		if err := f.pool.QueryRow(f.ctx, `select name from public.user_profiles where id = $1`, f.a.id).Scan(&name); err != nil || name != "Nume Prenume" {
			t.Fatalf("profile changed: %q %v", name, err)
		}
	})
	t.Run("short username", func(t *testing.T) {
		mustState(t, call(f.anon, fresh, "nou@example.ro", "Ion Pop", "io", "UB", nil), "23514")
	})
	t.Run("invalid username", func(t *testing.T) {
		mustState(t, call(f.anon, fresh, "nou@example.ro", "Ion Pop", "ion pop!", "UB", nil), "23514")
	})
	t.Run("short name", func(t *testing.T) {
		mustState(t, call(f.anon, fresh, "nou@example.ro", " I ", "ion_pop", "UB", nil), "23514")
	})
	t.Run("username taken ignoring case", func(t *testing.T) {
		mustState(t, call(f.anon, fresh, "nou@example.ro", "Ion Pop", "STUDENT_A", "UB", nil), "23505")
	})
	t.Run("unknown university", func(t *testing.T) {
		mustState(t, call(f.anon, fresh, "nou@example.ro", "Ion Pop", "ion_pop", "XYZ", nil), "23503")
	})
	t.Run("good, name and category from the list", func(t *testing.T) {
		if err := call(f.anon, fresh, "NOU@example.ro", "Ion Pop", "ion_pop", "UBB", "Fake"); err != nil {
			t.Fatal(err)
		}
		var name, cat, role string
		var admin bool
		if err := f.pool.QueryRow(f.ctx, `select university_name, university_category, role, is_admin from public.user_profiles where id = $1`, fresh).
			Scan(&name, &cat, &role, &admin); err != nil {
			t.Fatal(err)
		}
		if name != "Universitatea „Babeș-Bolyai” din Cluj-Napoca" || cat != "Public" || role != "user" || admin {
			t.Fatalf("profile: %q %q %q %v", name, cat, role, admin)
		}
	})
	t.Run("signed in, own, Other with a named institution", func(t *testing.T) {
		id := f.authUser("altul@example.ro", 3*time.Hour)
		me := who{role: "authenticated", id: id}
		if err := call(me, id, "altul@example.ro", "Ana Ion", "ana_ion", "Other", "Universitatea „Petre Andrei” din Iași"); err != nil {
			t.Fatal(err)
		}
		var name string
		if err := f.pool.QueryRow(f.ctx, `select university_name from public.user_profiles where id = $1`, id).Scan(&name); err != nil ||
			name != "Universitatea „Petre Andrei” din Iași" {
			t.Fatalf("university_name %q %v", name, err)
		}
	})
}

func TestIsUsernameAvailable(t *testing.T) {
	f := newFixture(t)
	for _, c := range []struct {
		username string
		want     bool
	}{
		{"liber_123", true}, {"student_a", false}, {"Student_A", false}, {"ab", false}, {"", false},
		{"cu spatiu", false}, {"ăăă", false}, {"x'; drop table x; --", false},
	} {
		for _, w := range []who{f.anon, f.b} {
			var got bool
			if err := f.scalar(w, &got, `select public.is_username_available($1)`, c.username); err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("is_username_available(%q) as %s = %v, want %v", c.username, w.name, got, c.want)
			}
		}
	}
}

func TestUpdateUserRole(t *testing.T) {
	f := newFixture(t)
	set := func(w who, id, role string) error {
		return f.as(w, func(tx pgx.Tx) error {
			_, err := tx.Exec(f.ctx, `select public.update_user_role($1, $2)`, id, role)
			return err
		})
	}
	roleOf := func(id string) (role string, admin bool) {
		if err := f.pool.QueryRow(f.ctx, `select role, is_admin from public.user_profiles where id = $1`, id).Scan(&role, &admin); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, w := range []who{f.anon, f.a, f.mod} {
		err := set(w, f.a.id, "admin")
		mustState(t, err, "42501")
		if !strings.Contains(err.Error(), "only administrators") {
			t.Errorf("unclear message: %v", err)
		}
	}
	if r, _ := roleOf(f.a.id); r != "user" {
		t.Fatalf("A became %s", r)
	}
	mustState(t, set(f.admin, f.a.id, "superuser"), "22023")
	mustState(t, set(f.admin, f.a.id, ""), "22023")
	mustState(t, set(f.admin, "00000000-0000-0000-0000-000000000000", "moderator"), "PT404")
	if err := set(f.admin, f.a.id, "moderator"); err != nil {
		t.Fatal(err)
	}
	if r, adm := roleOf(f.a.id); r != "moderator" || adm {
		t.Fatalf("A: %s %v", r, adm)
	}
	if err := set(f.admin, f.a.id, "admin"); err != nil {
		t.Fatal(err)
	}
	if r, adm := roleOf(f.a.id); r != "admin" || !adm {
		t.Fatalf("A: %s %v", r, adm)
	}
	f.a.aal = "aal2" // an admin acts with a second factor (MFA_REQUIRED_ROLES=admin)
	// Two admins: one may step down; the last may not.
	if err := set(f.admin, f.admin.id, "user"); err != nil {
		t.Fatal(err)
	}
	mustState(t, set(f.a, f.a.id, "user"), "23514")
	if err := set(f.svc, f.b.id, "moderator"); err != nil {
		t.Fatalf("service_role: %v", err)
	}
	// is_admin cannot be written apart from role.
	_, err := f.pool.Exec(f.ctx, `update public.user_profiles set is_admin = true where id = $1`, f.b.id)
	if err == nil {
		t.Fatal("is_admin writable")
	}
}

func searchCodes(t *testing.T, f *fixture, w who, q string, max any) []string {
	t.Helper()
	var codes []string
	err := f.as(w, func(tx pgx.Tx) error {
		rows, err := tx.Query(f.ctx, `select case_code from public.search_cases($1, $2)`, q, max)
		if err != nil {
			return err
		}
		codes, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		t.Fatalf("search_cases(%q): %v", q, err)
	}
	return codes
}

func TestSearchCases(t *testing.T) {
	f := newFixture(t)
	f.owner(`insert into public.cases (case_code, title, domain, verified) values
		('CIV5XYZ', 'Caz 2: Uzucapiunea extratabulară', 'civil', true),
		('PEN3RAS', 'Caz 3: Tâlhăria urmată de moartea victimei', 'penal', true),
		('CON4ABC', 'Caz 4: Excepția de neconstituționalitate – 100% admisibilă', 'constitutional', true),
		('CIV6DEF', 'Caz 5: Servitutea de trecere_pe teren (ş cu sedilă)', 'civil', true),
		('CIV7GHI', 'Caz 6: Contractul de vânzare: rezoluțiunea', 'civil', true)`)
	cases := []struct {
		q    string
		want []string
	}{
		{"raspundere", []string{"CIV1AAA"}},
		{"RĂSPUNDEREA", []string{"CIV1AAA"}},
		{"talharia", []string{"PEN3RAS"}},
		{"şedilă", []string{"CIV6DEF"}}, // cedilla ş in the query, comma-below ș nowhere: both fold to s
		{"sedila", []string{"CIV6DEF"}},
		{"excepţia", []string{"CON4ABC"}}, // cedilla ţ finds comma-below ț
		{"civ5xyz", []string{"CIV5XYZ"}},
		{"  CIV5  ", []string{"CIV5XYZ"}},
		// Code matches first: "ras" is in PEN3RAS's code and in "Răspunderea"'s title.
		{"ras", []string{"PEN3RAS", "CIV1AAA"}},
		{"", nil},
		{"   ", nil},
		{"a", nil},
		{"%", nil},
		{"%%", nil},
		{"__", nil},
		{"00%", []string{"CON4ABC"}},
		{"0%", nil}, // two characters: start of a word or code only
		{"uz", []string{"CIV5XYZ"}},
		{"ea", nil},
		{"TÂ", []string{"PEN3RAS"}},
		{"pe", []string{"PEN2BBB", "PEN3RAS", "CIV1AAA"}}, // code prefixes, then the title word "pentru"
		{"e_p", []string{"CIV6DEF"}},
		{"zzzz", nil},
	}
	for _, c := range cases {
		got := searchCodes(t, f, f.a, c.q, 10)
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("search_cases(%q) = %v, want %v", c.q, got, c.want)
		}
	}
	// Exact code before codes it prefixes, then other code matches before titles.
	f.owner(`insert into public.cases (case_code, title, domain) values ('CIV1', 'Titlu civ1 oarecare', 'civil'), ('XCIV1', 'Altul', 'civil')`)
	if got := strings.Join(searchCodes(t, f, f.a, "civ1", 10), ","); got != "CIV1,CIV1AAA,XCIV1" {
		t.Errorf("ranking: %s", got)
	}
	if got := searchCodes(t, f, f.a, "caz", 2); len(got) != 2 {
		t.Errorf("max_results 2: %v", got)
	}
	if got := searchCodes(t, f, f.a, "caz", nil); len(got) != 6 {
		t.Errorf("max_results null → default 10: %v", got)
	}
	if got := searchCodes(t, f, f.a, "caz", -5); len(got) != 0 {
		t.Errorf("negative max_results: %v", got)
	}
	// Default max_results via named call with one argument.
	var n int
	if err := f.scalar(f.a, &n, `select count(*) from public.search_cases(search_query => 'caz')`); err != nil || n != 6 {
		t.Errorf("default: %d %v", n, err)
	}
	err := f.as(f.anon, func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select * from public.search_cases('caz', 10)`)
		return err
	})
	mustState(t, err, "42501")
}

func TestSaveGeneratedCase(t *testing.T) {
	f := newFixture(t)
	save := func(w who, payload string) (string, error) {
		var id string
		err := f.scalar(w, &id, `select public.save_generated_case($1::jsonb)`, payload)
		return id, err
	}
	good := `{"case_code": "  civ4qwe ", "title": "Caz: Titlu", "level": "usor", "week_number": 4,
		"legal_problem": "Problema", "case_description": "Descriere", "question": "Întrebare?",
		"category": "Contracte", "subcategory": "Vânzarea", "verified": true, "user_id": "` + f.b.id + `",
		"articles": [{"article_number": "1650", "article_reference": "Art. 1650 C.civ."}, {"article_number": "1650", "article_reference": "dup"}, "Art. 1651 C.civ.", {"article_number": " "}],
		"analysis_steps": [{"step_number": 7, "description": "Primul"}, {"step_number": 2, "description": "  "}, "Al doilea", {"step_description": "Al treilea"}],
		"hints": [{"hint_number": 3, "text": ""}, {"hint_number": 1, "text": "Indiciu"}]}`
	id, err := save(f.a, good)
	if err != nil {
		t.Fatal(err)
	}
	var code, level, domain, owner string
	var verified bool
	if err := f.pool.QueryRow(f.ctx, `select case_code, level, domain, verified, user_id from public.cases where id = $1`, id).
		Scan(&code, &level, &domain, &verified, &owner); err != nil {
		t.Fatal(err)
	}
	if code != "CIV4QWE" || level != "Ușor" || domain != "civil" || verified || owner != f.a.id {
		t.Fatalf("case: %s %s %s %v %s", code, level, domain, verified, owner)
	}
	var steps, hints, arts string
	f.pool.QueryRow(f.ctx, `select string_agg(step_number || '=' || step_description, ';' order by step_number) from public.case_analysis_steps where case_id = $1`, id).Scan(&steps)
	f.pool.QueryRow(f.ctx, `select string_agg(hint_number || '=' || hint_text, ';' order by hint_number) from public.case_hints where case_id = $1`, id).Scan(&hints)
	f.pool.QueryRow(f.ctx, `select string_agg(article_number || '=' || article_reference, ';' order by article_number) from public.case_articles where case_id = $1`, id).Scan(&arts)
	if steps != "1=Primul;2=Al doilea;3=Al treilea" || hints != "1=Indiciu" || arts != "1650=Art. 1650 C.civ.;Art. 1651 C.civ.=Art. 1651 C.civ." {
		t.Fatalf("children: steps %q hints %q articles %q", steps, hints, arts)
	}

	before := f.ownerInt(`select count(*) from public.cases`)
	// Duplicate code (after normalising) → unique violation; nothing written.
	_, err = save(f.b, strings.Replace(good, "  civ4qwe ", "CIV4QWE", 1))
	mustState(t, err, "23505")
	// Validation: the spec's messages joined with '. '.
	_, err = save(f.a, `{"case_code": "PEN1AAA", "title": "", "analysis_steps": ["", " "], "hints": []}`)
	mustState(t, err, "23514")
	want := "Titlul este obligatoriu. Problema juridică este obligatorie. Descrierea cazului este obligatorie. Întrebarea este obligatorie. " +
		"Cel puțin un pas de analiză cu conținut este obligatoriu. Cel puțin un indiciu cu conținut este obligatoriu"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("message: %v", err)
	}
	_, err = save(f.a, strings.Replace(strings.Replace(good, "civ4qwe", "con4qwe", 1), `"subcategory": "Vânzarea"`, `"subcategory": ""`, 1))
	mustState(t, err, "23514")
	// A bad child (week out of range) fails the whole call.
	_, err = save(f.a, strings.Replace(strings.Replace(good, "civ4qwe", "civ4zzz", 1), `"week_number": 4`, `"week_number": 13`, 1))
	mustState(t, err, "23514")
	_, err = save(f.a, `[1, 2]`)
	mustState(t, err, "22023")
	_, err = save(f.anon, good)
	mustState(t, err, "42501")
	if after := f.ownerInt(`select count(*) from public.cases`); after != before {
		t.Fatalf("failed saves wrote %d cases", after-before)
	}
}

func TestSubmitFeedback(t *testing.T) {
	f := newFixture(t)
	var email, user *string
	err := f.as(f.anon, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select email, user_id::text from public.submit_feedback('  Mersi  ', 'x@example.ro')`).Scan(&email, &user)
	})
	if err != nil || email == nil || *email != "x@example.ro" || user != nil {
		t.Fatalf("anon feedback: %v %v %v", err, email, user)
	}
	err = f.as(f.a, func(tx pgx.Tx) error {
		return tx.QueryRow(f.ctx, `select email, user_id::text from public.submit_feedback('Mersi', 'ignored@example.ro')`).Scan(&email, &user)
	})
	if err != nil || email != nil || user == nil || *user != f.a.id {
		t.Fatalf("user feedback: %v %v %v", err, email, user)
	}
	err = f.as(f.anon, func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select public.submit_feedback('   ')`)
		return err
	})
	mustState(t, err, "23514")
	err = f.as(f.anon, func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select public.submit_feedback('ok', 'not-an-email')`)
		return err
	})
	mustState(t, err, "23514")
}

// search_cases takes a title tier's matches from the first codes in order, from the
// trigram index (few matches, or none) or, when they are many but not among the first
// codes, from the next 2,000 codes in order and then the index; every path must give
// exactly the ranking a brute-force query gives. "tarziu" is in 2,500 titles whose codes
// (PEN…) all sort after the 3,000 CIV codes: that last path.
func TestSearchCasesMatchesBruteForce(t *testing.T) {
	f := newFixture(t)
	f.owner(`insert into public.cases (case_code, title, domain)
		select 'CIV' || i, (array['Răspunderea','Contractul','Uzucapiunea','Furtul'])[abs(hashint4(i)) % 4 + 1] ||
		       case when i % 997 = 0 then ' rarisim' else '' end || ' nr ' || i, 'civil'
		from generate_series(1, 3000) i`)
	f.owner(`insert into public.cases (case_code, title, domain)
		select 'PEN' || i, 'Penal târziu ' || i, 'penal' from generate_series(1, 2500) i`)
	searchMatchesBruteForce(t, f, []string{"rarisim", "raspunderea", "civ29", "v15", "nr 2999", "furtul nr 1", "999", "tarziu", "fu", "zzzz", "iu 24"})
}

// searchMatchesBruteForce checks search_cases, as student A, against a brute-force
// ranking of every case (codes starting with the query, then codes containing it, then
// titles containing it, each by folded code) for each query at limits 3, 10 and 50.
// Queries of two characters search word starts only, which the brute force does not
// model: give it those only when no code contains them.
func searchMatchesBruteForce(t *testing.T, f *fixture, queries []string) {
	t.Helper()
	brute := `select c.case_code from public.cases c
		where public.search_fold(c.case_code) like $1 || '%' or public.search_fold(c.case_code) like '%' || $1 || '%'
		   or public.search_fold(c.title) like '%' || $1 || '%'
		order by (public.search_fold(c.case_code) like $1 || '%') desc,
		         (public.search_fold(c.case_code) like '%' || $1 || '%') desc, public.search_fold(c.case_code) collate "C"
		limit $2`
	for _, q := range queries {
		for _, n := range []int{3, 10, 50} {
			var want []string
			err := f.as(f.a, func(tx pgx.Tx) error {
				rows, err := tx.Query(f.ctx, brute, q, n)
				if err != nil {
					return err
				}
				want, err = pgx.CollectRows(rows, pgx.RowTo[string])
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			got := searchCodes(t, f, f.a, q, n)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("search_cases(%q, %d) =\n %v\nwant\n %v", q, n, got, want)
			}
		}
	}
}

// A visitor's confirmed account makes its profile from two places at once (the app's
// initial session read and its sign-in event both find no profile): the second call,
// overlapping the first's uncommitted insert, returns the same profile instead of
// failing on the unique index and leaving the app on "Completează-ți profilul".
func TestCreateUserProfileTwiceAtOnce(t *testing.T) {
	f := newFixture(t)
	id := f.authUser("dublu@example.ro", 0)
	self := who{name: "self", role: "authenticated", id: id}
	call := func(tx pgx.Tx) error {
		_, err := tx.Exec(f.ctx, `select public.create_user_profile($1, 'dublu@example.ro', 'Ion Pop', 'ion_dublu', 'UB')`, id)
		return err
	}
	inserted, release, first := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		first <- f.as(self, func(tx pgx.Tx) error {
			if err := call(tx); err != nil {
				close(inserted)
				return err
			}
			close(inserted)
			<-release
			return nil
		})
	}()
	<-inserted
	second := make(chan error, 1)
	go func() { second <- f.as(self, call) }()
	// The second call waits on a lock held by the first's open transaction.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting int
		if err := f.pool.QueryRow(f.ctx, `select count(*)::int from pg_stat_activity
			where wait_event_type = 'Lock' and query like '%create_user_profile%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the second call never waited for the first")
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("first call: %v", err)
	}
	if err := <-second; err != nil {
		t.Fatalf("second call at the same time: %v", err)
	}
	if n := f.ownerInt(`select count(*)::int from public.user_profiles where id = $1`, id); n != 1 {
		t.Fatalf("%d profiles", n)
	}
}
