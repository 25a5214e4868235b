package config

import "testing"

func TestParsePrefixes(t *testing.T) {
	ps, err := ParsePrefixes(" 10.0.0.0/8, 172.17.0.1 ,fd00::/8,::ffff:192.168.1.1, 192.168.5.7/16")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "172.17.0.1/32", "fd00::/8", "192.168.1.1/32", "192.168.0.0/16"}
	if len(ps) != len(want) {
		t.Fatalf("got %v", ps)
	}
	for i, p := range ps {
		if p.String() != want[i] {
			t.Errorf("%d: got %s want %s", i, p, want[i])
		}
	}
	if ps, err := ParsePrefixes(""); err != nil || len(ps) != 0 {
		t.Fatalf("empty: %v %v", ps, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "localhost", "10.0.0.1, x"} {
		if _, err := ParsePrefixes(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestTrustedProxiesFromEnvironment(t *testing.T) {
	t.Setenv("JWT_SECRET", "a-test-secret-that-is-at-least-32-bytes!")
	t.Setenv("TRUSTED_PROXIES", "10.0.0.0/8")
	c, err := Load()
	if err != nil || len(c.TrustedProxies) != 1 || c.TrustedProxies[0].String() != "10.0.0.0/8" {
		t.Fatalf("%v %v", c, err)
	}
	t.Setenv("TRUSTED_PROXIES", "not-a-cidr")
	if _, err := Load(); err == nil {
		t.Fatal("bad TRUSTED_PROXIES accepted")
	}
}
