package prompts

// The rubric as the grader scores it (../shared/domain/rubric.md, with the descriptors of
// grader-review-3 Appendix A and the strictness columns of its R2): the model scores
// every sub-item on its own scale with the evidence it saw; the server applies the
// problems' weights, sums, rounds and writes every subtotal and the total.

// Descriptor says what earns full, partial and zero points on one sub-item.
type Descriptor struct{ Full, Partial, Zero string }

// SubItem is one scored unit: a Part I item (key "punctaj") or a sub-item of Part II.
type SubItem struct {
	Key, Label string
	Max        int
	Desc       Descriptor
	// ByLevel replaces Desc at a strictness level (the level-dependent sub-items); only
	// the chosen level's column goes into the prompt.
	ByLevel map[int]Descriptor
}

// Describe is the sub-item's descriptor at a strictness level.
func (s SubItem) Describe(level int) Descriptor {
	if d, ok := s.ByLevel[level]; ok {
		return d
	}
	return s.Desc
}

// Criterion is one of the rubric's ten graded items.
type Criterion struct {
	Code, Label string
	Max         int
	Sub         []SubItem
	// PerProblem: scored once per legal problem (2.2.x); the server weighs the problems.
	PerProblem bool
	// Cap is the rubric's ceiling rule for the item, if any.
	Cap string
}

// Criteria are the rubric's ten graded items, 40 + 60 points.
var Criteria = []Criterion{
	{Code: "1.1", Label: "Citirea și înțelegerea enunțului", Max: 5, Sub: []SubItem{{Key: "punctaj", Max: 5, Desc: Descriptor{
		"5: nicio citire greșită; fiecare sub-întrebare a cerinței primește răspuns.",
		"4: o sub-întrebare tratată superficial; 3: o sub-întrebare omisă sau o mică greșeală de citire fără efect asupra soluției; 1–2: mai multe sub-întrebări omise sau o greșeală de citire care atinge o problemă secundară.",
		"0: răspunde la altă întrebare sau inventează ori deformează un fapt care decide soluția."}}}},
	{Code: "1.2", Label: "Identificarea elementelor esențiale și filtrarea celor neesențiale", Max: 8, Sub: []SubItem{{Key: "punctaj", Max: 8, Desc: Descriptor{
		"8: toate faptele relevante juridic (calitatea părților – vârstă, stare civilă, profesionist sau nu –, date, valori, forma actului, cunoașterea sau buna-credință, actele anterioare), fără elemente de decor.",
		"7: un fapt relevant minor omis; 5–6: un fapt relevant pentru o problemă secundară omis sau un element de decor tratat ca relevant; 3–4: două asemenea scăpări; 1–2: un element de decor tratat ca decisiv.",
		"0: faptul decisiv al problemei principale este omis."}}}},
	{Code: "1.3", Label: "Ordonarea cronologică a elementelor", Max: 5, Sub: []SubItem{{Key: "punctaj", Max: 5, Desc: Descriptor{
		"5: ordine corectă și, acolo unde momentul contează juridic (legea aplicabilă în timp, capacitatea la data actului, începutul unui termen, primul act), de ce contează; dacă momentul nu are relevanță juridică în speță, ordinea corectă ajunge, fără o discuție despre cronologie.",
		"3–4: ordine corectă, fără a spune de ce contează acolo unde contează; 1–2: ordinea nu se poate reconstitui acolo unde contează.",
		"0: ordine greșită într-un punct decisiv juridic."}}}},
	{Code: "1.4", Label: "Rezumatul faptelor esențiale", Max: 7, Sub: []SubItem{{Key: "punctaj", Max: 7, Desc: Descriptor{
		"7: concis (3–6 propoziții), fidel, neutru, în limbaj juridic; nu copiază enunțul și nu adaugă fapte.",
		"6: fidel, dar puțin lung sau cu un element de decor; 4–5: mult prea lung sau copiat în mare parte; 2–3: ușor deformat sau foarte sumar; 1: fragmente.",
		"0: lipsește cu totul sau deformează faptele."}}}},
	{Code: "1.5", Label: "Calificarea juridică a faptelor", Max: 10, Sub: []SubItem{{Key: "punctaj", Max: 10,
		Desc: Descriptor{
			"10: corectă și precisă (actul, calitatea părților, sancțiunea / infracțiunea / mecanismul constituțional).",
			"9: o scăpare minoră de terminologie; 7–8: un element lipsă (tipul actului, felul nulității, calitatea unei părți); 4–6: vagă în mai multe puncte; 1–3: greșită la o problemă secundară.",
			"0: categorie greșită la problema principală (de exemplu nulitate absolută în loc de relativă, furt în loc de tâlhărie)."},
		ByLevel: map[int]Descriptor{
			1: {"10: corectă în substanță; un termen vag, dar corect (de exemplu „nulitate” fără felul ei), pierde cel mult 1 punct.",
				"9: un termen vag sau o scăpare de terminologie; 7–8: două elemente vagi sau unul lipsă; 4–6: vagă în mai multe puncte; 1–3: greșită la o problemă secundară.",
				"0: categorie greșită la problema principală."},
			5: {"10: corectă și precisă în fiecare termen.",
				"8–9: o scăpare minoră; cel mult 7: o imprecizie de termen; cel mult 5: două imprecizii; 1–3: vagă în mai multe puncte sau greșită la o problemă secundară.",
				"0: categorie greșită la problema principală."},
		}}}},
	{Code: "1.6", Label: "Determinarea problemei juridice", Max: 5, Sub: []SubItem{{Key: "punctaj", Max: 5,
		Desc: Descriptor{
			"5: toate problemele, inclusiv cele secundare, în termeni generali (fără numele părților), fiecare cu un răspuns posibil.",
			"4: toate, dar una formulată cu numele părților sau în termeni de fapt; 3: doar problema principală, bine formulată; 2: doar problema principală, cu numele părților, sau copiată din enunț; 1: una greșită alături de una corectă.",
			"0: lipsește sau este greșită."},
		ByLevel: map[int]Descriptor{
			1: {"5: problema principală, bine formulată (problemele secundare nu se cer la acest nivel).",
				"3–4: problema principală formulată cu numele părților sau în termeni de fapt; 1–2: problema principală copiată din enunț sau formulată confuz.",
				"0: lipsește sau este greșită."},
			5: {"5: toate problemele, inclusiv cele secundare, în termeni generali, fiecare cu un răspuns posibil.",
				"4: toate, una în termeni de fapt; 3: doar problema principală, bine formulată; cel mult 2: orice formulare cu numele părților; 1: una greșită alături de una corectă.",
				"0: lipsește sau este greșită."},
		}}}},
	{Code: "2.1", Label: "Introducere", Max: 10, Sub: []SubItem{
		{Key: "fapte", Label: "prezentarea faptelor esențiale reținute", Max: 3, Desc: Descriptor{
			"3: scurt, cronologic, numai faptele relevante.", "2: corect, dar lung sau cu elemente de decor; 1: o repovestire sau o copie a enunțului.", "0: faptele lipsesc din introducere."}},
		{Key: "calificare", Label: "calificarea juridică", Max: 4, Desc: Descriptor{
			"4: enunțată explicit în introducere, în termeni preciși.", "2–3: enunțată, dar vagă, incompletă sau greșită (punctele de formă rămân; corectitudinea se notează la 1.5); 1: doar sugerată.", "0: lipsește din introducere (1.5 se judecă oriunde apare în text)."}},
		{Key: "probleme", Label: "enunțarea problemelor juridice", Max: 3, Desc: Descriptor{
			"3: fiecare problemă, înainte de analiză, ca întrebare generală la care se poate răspunde.", "2: toate, una cu numele părților sau în termeni de fapt; 1: doar problema principală.", "0: lipsesc."}},
	}},
	{Code: "2.2.1", Label: "Premisa majoră", Max: 20, PerProblem: true,
		Cap: "O premisă majoră care doar enumeră numere de articole, fără condiții, primește cel mult punctele de la izvoare.",
		Sub: []SubItem{
			{Key: "izvoare", Label: "corectitudinea izvoarelor", Max: 5,
				Desc: Descriptor{
					"5: textele care decid problema, în vigoare la momentul relevant, citate cu articol și alineat/literă, pentru regulă și pentru excepție.",
					"3: texte corecte, dar fără alineat, sau un text secundar greșit; 1: un text decisiv greșit sau abrogat alături de texte corecte.",
					"0: niciun text corect."},
				ByLevel: map[int]Descriptor{
					1: {"5: articolul corect, chiar fără alineat.", "3: un text secundar greșit alături de cel corect; 1: un text decisiv greșit alături de texte corecte.", "0: niciun text corect."},
					5: {"5: ca la nivelul 3, plus regulile de aplicare în timp sau normele speciale, acolo unde sunt relevante.",
						"3: texte corecte și precise, dar fără regulile de aplicare în timp sau normele speciale relevante, ori fără alineat; 1: un text decisiv greșit sau abrogat alături de texte corecte.",
						"0: niciun text corect."},
				}},
			{Key: "relevanta", Label: "relevanța regulilor", Max: 5, Desc: Descriptor{
				"5: numai regulile care decid problema.", "3: unul sau două texte fără legătură cu problema; 1: un catalog de articole.", "0: numai texte fără legătură cu problema."}},
			{Key: "completitudine", Label: "completitudinea expunerii normative", Max: 5,
				Desc: Descriptor{
					"5: regula ca „dacă [condiții], atunci [efect]”, cu toate condițiile cumulative și excepțiile principale.",
					"3: o condiție sau excepția principală lipsește; 2: mai multe lipsesc; 1: numai efectul sau o parafrază.",
					"0: lipsește."},
				ByLevel: map[int]Descriptor{
					1: {"5: condițiile principale și efectul; excepțiile nu se cer.", "3: o condiție principală lipsește; 2: mai multe lipsesc; 1: numai efectul sau o parafrază.", "0: lipsește."},
					5: {"5: toate condițiile și toate excepțiile.", "3: una lipsește; 1–2: mai multe lipsesc.", "0: lipsește."},
				}},
			{Key: "interpretare", Label: "jurisprudență / doctrină", Max: 5,
				Desc: Descriptor{
					"5: interpretarea textului argumentată sau menționarea unei decizii obligatorii acolo unde există clar (numărul nu se cere; descrierea corectă ajunge).",
					"3: interpretare corectă, dar neargumentată; 1: doar parafrazarea textului.",
					"0: lipsește sau este greșită."},
				ByLevel: map[int]Descriptor{
					1: {"5: regula este explicată corect cu cuvintele studentului; nu se cer decizii, autori sau interpretări alternative.", "3: explicația este corectă, dar confuză; 1: doar repetarea textului.", "0: numai dacă explicația este greșită."},
					5: {"5: interpretare argumentată, plus o interpretare alternativă sau un contraargument discutat, plus practica (ÎCCJ, CCR) sau doctrina relevantă descrisă corect.",
						"3: două dintre acestea; 1: una.", "0: niciuna."},
				}},
		}},
	{Code: "2.2.2", Label: "Premisa minoră", Max: 15, PerProblem: true,
		Cap: "O premisă minoră care doar repetă faptele, fără legătură cu condițiile, primește cel mult punctele de la fapte.",
		Sub: []SubItem{
			{Key: "fapte", Label: "prezentarea faptelor în termeni juridici", Max: 5, Desc: Descriptor{
				"5: fiecare fapt folosit este reformulat în vocabularul normei.", "3: un amestec de poveste și calificare; 1: o repovestire.", "0: lipsește."}},
			{Key: "conectare", Label: "conectarea fapt–normă", Max: 5, Desc: Descriptor{
				"5: fiecare condiție enunțată este verificată pe un fapt, în aceeași ordine.", "3: o condiție enunțată rămâne neverificată sau este verificată fără un fapt; 1: o concluzie globală, fără verificarea condițiilor una câte una.", "0: lipsește."}},
			{Key: "probe", Label: "elemente probatorii", Max: 5,
				Desc: Descriptor{
					"5: semnalează ce lipsește din fapte și cine trebuie să dovedească.",
					"3: doar semnalează ce lipsește; 1: o mențiune vagă.",
					"0: nimic."},
				ByLevel: map[int]Descriptor{
					1: {"5: verificarea nu contrazice faptele speței; raționamentul alternativ nu se cere.", "3: o afirmație contrazisă de fapte într-un punct secundar; 1: mai multe.", "0: verificarea contrazice faptele decisive."},
					5: {"5: ce este dovedit, ce lipsește, cine dovedește și scenarii alternative („dacă… atunci…; dacă nu…”).", "3: fără scenarii alternative; 1: doar ce lipsește.", "0: nimic."},
				}},
		}},
	{Code: "2.2.3", Label: "Concluzia", Max: 15, PerProblem: true,
		Cap: "O concluzie care nu răspunde la întrebare primește cel mult punctele de la logică.",
		Sub: []SubItem{
			{Key: "logica", Label: "logica și rigoarea argumentării", Max: 5, Desc: Descriptor{
				"5: decurge din cele două premise, fără argumente noi și fără contradicții.", "3: un argument nou sau o mică inconsecvență; 1: contrazice premisele sau nu are premise din care să decurgă.", "0: lipsește."}},
			{Key: "claritate", Label: "claritatea răspunsului", Max: 5, Desc: Descriptor{
				"5: răspunde direct la fiecare sub-întrebare a cerinței care ține de această problemă.", "3–4: răspunde la întrebarea principală și sare o sub-întrebare; cel mult 1: echivoc („depinde”) fără alegere sau cu soluții contradictorii.", "0: niciun răspuns."}},
			{Key: "completitudine", Label: "completitudinea soluției", Max: 5,
				Desc: Descriptor{
					"5: răspunsul și consecința principală (remediul sau sancțiunea, restituirea, limitele pedepsei, efectele unei decizii).",
					"3: consecință incompletă; 1–2: fără consecință.",
					"0: fără răspuns."},
				ByLevel: map[int]Descriptor{
					1: {"5: un răspuns clar la întrebare; consecințele nu se cer.", "3: răspuns clar, dar incomplet; 1–2: răspuns greu de găsit.", "0: fără răspuns."},
					5: {"5: toate consecințele: cine le poate invoca, termene, restituire sau limitele pedepsei, efecte.", "3: una lipsește; 1: mai multe lipsesc.", "0: fără răspuns."},
				}},
		}},
}
