package aigw

// canonicalUUID reports whether s is a UUID in PostgreSQL's text form (lowercase, with
// hyphens): exactly the strings that `id::text = s` could match. Queries compare
// `id = s::uuid` instead, which uses the primary key; a cast of the column would read
// the whole table. Anything else matches no row, as before, without the cast's error.
func canonicalUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
				return false
			}
		}
	}
	return true
}
