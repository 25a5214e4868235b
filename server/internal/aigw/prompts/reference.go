package prompts

import "casus/server/internal/modelanswer"

// Problem is one legal problem of a case and its share of the 50 analysis points (2.2).
type Problem struct {
	Text   string
	Points int
}

// fallbackProblem stands for the case's problem when a model answer announces none.
const fallbackProblem = "problema juridică a speței"

// Problems reads the legal problems a model answer announces (modelanswer.Parse, the
// reader the seed checks use too) and gives each its weight in the 50 analysis points:
// the first (main) problem two shares, every other one share, whole points, the
// remainder to the main problem. The weights are the server's, taken from the
// reference, so the model does not choose them per grade. found is false when the
// answer announces no problem: the case is then weighed as one problem of 50 points.
func Problems(modelAnswer string) (ps []Problem, found bool) {
	l, found := modelanswer.Parse(modelAnswer)
	texts := l.Problems
	if !found {
		texts = []string{fallbackProblem}
	}
	shares := len(texts) + 1
	if len(texts) == 1 {
		shares = 1
	}
	out := make([]Problem, len(texts))
	given := 0
	for i, t := range texts {
		p := 50 / shares
		if i == 0 && len(texts) > 1 {
			p = 2 * 50 / shares
		}
		out[i] = Problem{Text: t, Points: p}
		given += p
	}
	out[0].Points += 50 - given
	return out, found
}
