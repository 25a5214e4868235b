// Command review-hash prints the content hash of every item of curriculum files, the
// value a reader records beside a verdict in sql/seed/reviews/:
//
//	go run ./server/cmd/review-hash sql/seed/grile/civil.yaml [CODE...]
package main

import (
	"fmt"
	"os"

	"casus/server/internal/seed/review"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: review-hash FILE.yaml [CODE...]")
		os.Exit(2)
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	hashes, order, err := review.ItemHashes(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, os.Args[1]+":", err)
		os.Exit(1)
	}
	want := map[string]bool{}
	for _, c := range os.Args[2:] {
		want[c] = true
	}
	for _, code := range order {
		if len(want) == 0 || want[code] {
			fmt.Println(code, hashes[code])
		}
	}
}
