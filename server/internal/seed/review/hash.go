// Package review fingerprints curriculum items (cases and grile) so that a reader's
// verdict can be tied to the exact content that was read: any change to an item after
// its reading changes its hash, and the verdict no longer covers it.
package review

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"
)

// ItemHashes reads a YAML list of items (a cases or grile file) and returns, per item code,
// the hash of its content. The hash is taken over the item's fields as JSON with sorted
// keys, so re-indenting or reordering the YAML does not change it; any change of a value
// does.
func ItemHashes(data []byte) (map[string]string, []string, error) {
	var items []map[string]any
	if err := yaml.Unmarshal(data, &items); err != nil {
		return nil, nil, err
	}
	hashes := make(map[string]string, len(items))
	order := make([]string, 0, len(items))
	for i, it := range items {
		code, _ := it["code"].(string)
		if code == "" {
			return nil, nil, fmt.Errorf("item %d has no code", i+1)
		}
		if _, dup := hashes[code]; dup {
			return nil, nil, fmt.Errorf("item code %s appears twice", code)
		}
		h, err := Hash(it)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", code, err)
		}
		hashes[code] = h
		order = append(order, code)
	}
	return hashes, order, nil
}

// Hash fingerprints one decoded item: the first 16 hex digits of the SHA-256 of its
// canonical JSON.
func Hash(item map[string]any) (string, error) {
	b, err := json.Marshal(normalise(item))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

// normalise turns YAML's decoded values into JSON-encodable ones (dates become their
// YAML text, maps with non-string keys get string keys).
func normalise(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalise(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = normalise(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalise(e)
		}
		return out
	default:
		if t, ok := x.(interface{ Format(string) string }); ok {
			return t.Format("2006-01-02")
		}
		return x
	}
}
