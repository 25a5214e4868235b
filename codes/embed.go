// Package codes embeds the consolidated legal texts shipped with Casus.
package codes

import "embed"

// Texts holds codul_civil.txt, codul_penal.txt and constitutia.txt.
//
//go:embed *.txt
var Texts embed.FS
