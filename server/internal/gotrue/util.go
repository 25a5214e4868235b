package gotrue

func nonNil(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

func ptr[T any](v T) *T { return &v }
