// Package aitest is a scripted fake of the Anthropic Messages API for tests and demos.
package aitest

import (
	"context"
	"errors"
)

// Main runs `casus fake-ai`. Placeholder until the AI gateway issue lands.
func Main(ctx context.Context, args []string) error { return errors.New("fake-ai: not built yet") }
