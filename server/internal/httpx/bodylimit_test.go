package httpx

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The largest request body is one setting (MAX_BODY_BYTES, config.MaxBodyBytes): every
// service that reads a request body bounds it with that, never a number of its own.
func TestEveryRequestBodyBoundByTheOneSetting(t *testing.T) {
	call := regexp.MustCompile(`http\.MaxBytesReader\(\s*\w+,\s*r\.Body,\s*([^)]*)\)`)
	found := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range call.FindAllSubmatch(src, -1) {
			found++
			if !strings.HasSuffix(string(m[1]), "Config.MaxBodyBytes") {
				t.Errorf("%s bounds a request body by %s, not Config.MaxBodyBytes", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 4 {
		t.Fatalf("found %d request-body bounds; expected auth, data API, AI gateway and realtime", found)
	}
}
