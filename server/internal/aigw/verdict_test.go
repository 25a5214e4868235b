package aigw

import (
	"strings"
	"testing"
)

// Honest students' mistakes are never evidence: whatever the detector claims, a text
// passes unless it quotes, from the text itself, a chat assistant's formula or template
// remnant (one suffices) or two signs of another language or another case.
func TestOnlyQuotedArtefactsBlock(t *testing.T) {
	student := "Cred ca Ion raspunde, conform art. 1375 C.civ. (poate gresesc articolul). In ceea ce priveste prejudiciul, face sens sa il repare.\n" +
		"**Concluzie** Ion plătește. This paragraph is in English entirely. Maria Popescu from another case."
	for _, c := range []struct {
		reply, want string
	}{
		{`{"probability": 95, "decision": "FAILED", "justification": "articol inexistent, calcuri"}`, "PASSED"},
		{`{"indicii": [{"tip": "E", "citat": "art. 1375 C.civ."}], "decision": "FAILED"}`, "PASSED"},
		{`{"indicii": [{"tip": "C", "citat": "face sens sa il repare"}], "decision": "FAILED"}`, "PASSED"},
		{`{"indicii": [{"tip": "A", "citat": "Sper că te-a ajutat"}], "decision": "FAILED"}`, "PASSED"},
		{`{"indicii": [{"tip": "A", "citat": ""}], "decision": "FAILED"}`, "PASSED"},
		{`{"indicii": [{"tip": "B", "citat": "**Concluzie**"}], "decision": "PASSED"}`, "FAILED"},
		{`{"indicii": [{"tip": "C", "citat": "This paragraph is in English entirely"}, {"tip": "D", "citat": "Maria Popescu"}], "decision": "FAILED"}`, "FAILED"},
	} {
		v, ok := parseVerdict(c.reply, student)
		if !ok || v.Decision != c.want || (v.Decision == "PASSED") != (*v.Probability <= 30) {
			t.Errorf("%s: %+v", c.reply, v)
		}
		if v.Decision == "FAILED" && !strings.Contains(v.Justification, "„") {
			t.Errorf("a FAILED without its quotes: %q", v.Justification)
		}
	}
	if _, ok := parseVerdict("nu știu", student); ok {
		t.Error("a reply without JSON read as a verdict")
	}
}

// Trivial edits keep the key; a changed word does not.
func TestVerdictKey(t *testing.T) {
	k := verdictKey("Ion răspunde, în temeiul art. 1357.")
	for _, same := range []string{"ion raspunde in temeiul art 1357", "Ion  răspunde,\nîn temeiul art. 1357!", "ION RĂSPUNDE ÎN TEMEIUL ART. 1357."} {
		if verdictKey(same) != k {
			t.Errorf("%q has another key", same)
		}
	}
	if verdictKey("Ion nu răspunde, în temeiul art. 1357.") == k {
		t.Error("a changed word kept the key")
	}
}
