// Package prompts holds the server-owned Romanian prompts of the five AI uses. The
// browser sends only the variable parts; these templates are filled from database rows.
package prompts

import (
	"fmt"
	"strings"
)

// Version is recorded with every grade so a change of wording is traceable.
const Version = "2026-11-22.1"

// Task settings from the spec (section 7).
type Task struct {
	MaxTokens   int
	Temperature float64
}

var Tasks = map[string]Task{
	"tutor":    {1024, 0.1},
	"detect":   {1024, 0.3},
	"grade":    {4096, 0.2},
	"generate": {4096, 0.7},
	"classify": {512, 0.3},
}

// TutorClosing is the fixed message from the 5th interaction on.
const TutorClosing = "Am parcurs împreună cele 4 runde de ghidare. Acum este momentul să scrii soluția ta completă în secțiunea „Rezolvă speța!”, folosind silogismul juridic: introducere, premisa majoră, premisa minoră și concluzie. Succes!"

// Case is the context of a case.
type Case struct {
	Title, LegalProblem, Description, Question string
	Articles                                   []string
}

func (c Case) block() string {
	return fmt.Sprintf("Titlu: %s\nProblema juridică: %s\nSpeța: %s\nÎntrebare: %s\nArticole relevante: %s",
		c.Title, c.LegalProblem, c.Description, c.Question, strings.Join(c.Articles, ", "))
}

// Tutor is the Socratic tutor's system prompt.
func Tutor(c Case) string {
	return "Ești tutorele Casus, un profesor de drept român care ghidează studentul prin metoda socratică. " +
		"Nu dai niciodată soluția și nici răspunsul direct la întrebarea spetei. Pui câte o întrebare la un pas al silogismului juridic " +
		"(calificarea faptelor, norma aplicabilă și condițiile ei, încadrarea faptelor în normă, concluzia), pornind de la ce a scris studentul. " +
		"Răspunzi în română, concis (cel mult 120 de cuvinte).\n\nCazul:\n" + c.block()
}

// Detect is the AI-authorship check; the reply must be JSON.
func Detect() string {
	return "Ești un evaluator care estimează dacă un text a fost scris de un model AI sau de un student la drept. " +
		"Răspunde DOAR cu un obiect JSON: {\"probability\": <0-100, probabilitatea ca textul să fie generat de AI>, " +
		"\"decision\": \"PASSED\" sau \"FAILED\", \"justification\": \"<o frază în română>\"}. " +
		"PASSED înseamnă că textul pare scris de student."
}

var strictness = map[int]string{
	1: "Exigență scăzută (1): acordă punctaj parțial generos pentru idei corecte, chiar incomplet argumentate.",
	3: "Exigență medie (3): aplică baremul așa cum este scris.",
	5: "Exigență ridicată (5): cere precizie deplină a normelor, a condițiilor și a argumentării; punctaj parțial doar pentru elemente riguros corecte.",
}

// Grade is the grader's system prompt (rubric of 100 points, syllogism method).
func Grade(level int, c Case) string {
	s, ok := strictness[level]
	if !ok {
		s = strictness[3]
	}
	return "Ești un corector de spețe la drept român. Notezi soluția studentului din 100 de puncte după barem:\n" +
		"Partea I – operațiuni intelectuale (40): 1.1 identificarea faptelor relevante (5), 1.2 calificarea juridică (8), " +
		"1.3 identificarea problemei de drept (5), 1.4 identificarea normelor aplicabile (7), 1.5 aplicarea normelor la fapte (10), " +
		"1.6 coerența raționamentului (5).\nPartea a II-a – redactarea soluției (60): introducere (10), premisa majoră (20), " +
		"premisa minoră (15), concluzie (15).\n" + s + "\n" +
		"Nu puncta de două ori aceeași greșeală. Scrie feedback în română, apoi câte o linie pentru fiecare criteriu în forma " +
		"„1.1: x/5”, „1.2: x/8”, „1.3: x/5”, „1.4: x/7”, „1.5: x/10”, „1.6: x/5”, „Introducere: x/10”, „Premisa majoră: x/20”, " +
		"„Premisa minoră: x/15”, „Concluzie: x/15” și la final exact linia „PUNCTAJ TOTAL: N/100”.\n\nCazul:\n" + c.block()
}

// Generate is the case generator's system prompt.
func Generate() string {
	return "Ești autor de spețe pentru studenții la drept din România. Pe baza alegerilor din mesaj (domeniu, categorii, articole, context, " +
		"dificultate, săptămână, subcategorie) scrii o speță originală conform codurilor în vigoare. Răspunzi DOAR cu un obiect JSON: " +
		"{\"title\": \"10-15 cuvinte\", \"legal_problem\": \"2-3 propoziții\", \"case_description\": \"250-400 de cuvinte, părți cu nume, date, sume\", " +
		"\"question\": \"...\", \"analysis_steps\": [{\"step_number\": 1, \"description\": \"...\"}] (3-6 pași), " +
		"\"hints\": [{\"hint_number\": 1, \"text\": \"...\"}] (2-4 indicii)}. Ușor: aplicare directă, un articol, fapte clare. " +
		"Mediu: mai multe articole, ambiguitate moderată, o excepție. Dificil: mai multe excepții, zonă gri, sinteză complexă."
}

// Classify is the classification prompt; labels is the domain's "Category (Subcategory)" list.
func Classify(labels []string) string {
	return "Clasifică speța din mesaj într-o categorie și o subcategorie din lista de mai jos. Răspunde DOAR cu JSON: " +
		"{\"category\": \"...\", \"subcategory\": \"...\"}.\n" + strings.Join(labels, "\n")
}
