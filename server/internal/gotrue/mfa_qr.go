package gotrue

import (
	"strconv"
	"strings"

	"github.com/boombuler/barcode/qr"
)

// qrQuietZone is the blank border, in modules, that QR readers need around the code.
const qrQuietZone = 4

// qrSVG draws the otpauth URI as a QR code (error correction H, as GoTrue's) in SVG: one
// path of unit squares scaled by the viewBox. Neither '#' nor '%' appears in it, so supabase-js's
// "data:image/svg+xml;utf-8," prefix makes a valid image URL.
func qrSVG(content string) (string, error) {
	code, err := qr.Encode(content, qr.H, qr.Auto)
	if err != nil {
		return "", err
	}
	n := code.Bounds().Dx()
	size := strconv.Itoa(n + 2*qrQuietZone)
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="` + strconv.Itoa(3*(n+2*qrQuietZone)) + `" height="` + strconv.Itoa(3*(n+2*qrQuietZone)) +
		`" viewBox="0 0 ` + size + ` ` + size + `" shape-rendering="crispEdges"><rect width="` + size + `" height="` + size + `" fill="white"/><path fill="black" d="`)
	for y := range n {
		for x := range n {
			if r, _, _, _ := code.At(x, y).RGBA(); r == 0 {
				b.WriteString("M" + strconv.Itoa(x+qrQuietZone) + " " + strconv.Itoa(y+qrQuietZone) + "h1v1h-1z")
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String(), nil
}
