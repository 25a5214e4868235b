package gotrue

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/boombuler/barcode/qr"
)

// The SVG draws exactly the dark modules of the QR code, shifted by the quiet zone, and
// stays a valid body for supabase-js's non-base64 data: URI (no '#', no '%').
func TestQRSVGDrawsTheCode(t *testing.T) {
	uri := "otpauth://totp/Casus:ana@example.ro?algorithm=SHA1&digits=6&issuer=Casus&period=30&secret=FF3ZDV33GSTRY4NL5BNDYXPPBDGOSTZ2"
	svg, err := qrSVG(uri)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(svg, "<svg ") || !strings.HasSuffix(svg, "</svg>") || strings.ContainsAny(svg, "#%") {
		t.Fatalf("svg %.120q", svg)
	}
	code, _ := qr.Encode(uri, qr.H, qr.Auto)
	n := code.Bounds().Dx()
	if !strings.Contains(svg, fmt.Sprintf(`viewBox="0 0 %d %d"`, n+2*qrQuietZone, n+2*qrQuietZone)) {
		t.Fatalf("viewBox for %d modules missing", n)
	}
	drawn := map[[2]int]bool{}
	for _, m := range regexp.MustCompile(`M(\d+) (\d+)h1v1h-1z`).FindAllStringSubmatch(svg, -1) {
		var x, y int
		fmt.Sscan(m[1], &x)
		fmt.Sscan(m[2], &y)
		drawn[[2]int{x - qrQuietZone, y - qrQuietZone}] = true
	}
	dark := 0
	for y := range n {
		for x := range n {
			r, _, _, _ := code.At(x, y).RGBA()
			if (r == 0) != drawn[[2]int{x, y}] {
				t.Fatalf("module (%d,%d): dark %v, drawn %v", x, y, r == 0, drawn[[2]int{x, y}])
			}
			if r == 0 {
				dark++
			}
		}
	}
	if dark != len(drawn) || dark == 0 {
		t.Fatalf("%d dark modules, %d drawn", dark, len(drawn))
	}
}
