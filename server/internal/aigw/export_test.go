package aigw

// PassedSQL is the gateway's "may this be graded" expression, for the external tests.
const PassedSQL = passedSQL

// The gateway's reads of a student's earlier work, for the plan test.
var EarlierWorkSQL = map[string]struct {
	SQL  string
	Args []any
}{
	"storedVerdict": {storedVerdictSQL, []any{"aaaaaaaa-1111-4111-8111-000000000001", "cccccccc-1111-4111-8111-000000000003", "key"}},
	"releasedTexts": {releasedTextsSQL, []any{"aaaaaaaa-1111-4111-8111-000000000001", "cccccccc-1111-4111-8111-000000000003"}},
	"earlierGrades": {earlierGradesSQL, []any{"aaaaaaaa-1111-4111-8111-000000000001", "cccccccc-1111-4111-8111-000000000003", 5, "v", "m", "dddddddd-1111-4111-8111-000000000004"}},
}
