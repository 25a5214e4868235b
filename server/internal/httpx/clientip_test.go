package httpx

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestClientIP(t *testing.T) {
	proxies := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("fd00::/8"), netip.MustParsePrefix("172.17.0.1/32")}
	cases := []struct {
		name    string
		peer    string
		xff     []string
		trusted []netip.Prefix
		want    string
	}{
		{"no proxies configured: header ignored", "203.0.113.7:5000", []string{"1.2.3.4"}, nil, "203.0.113.7"},
		{"untrusted peer: header ignored", "203.0.113.7:5000", []string{"1.2.3.4"}, proxies, "203.0.113.7"},
		{"trusted peer without header", "10.1.2.3:5000", nil, proxies, "10.1.2.3"},
		{"trusted peer: its hop", "10.1.2.3:5000", []string{"198.51.100.9"}, proxies, "198.51.100.9"},
		{"forged left hops ignored", "10.1.2.3:5000", []string{"1.1.1.1, 2.2.2.2, 198.51.100.9"}, proxies, "198.51.100.9"},
		{"chain of trusted proxies", "172.17.0.1:5000", []string{"6.6.6.6, 198.51.100.9, 10.9.9.9"}, proxies, "198.51.100.9"},
		{"several header lines read as one list", "10.1.2.3:1", []string{"6.6.6.6", "198.51.100.9, 10.0.0.2"}, proxies, "198.51.100.9"},
		{"all hops trusted: left-most", "10.1.2.3:1", []string{"10.0.0.5, 10.0.0.6"}, proxies, "10.0.0.5"},
		{"garbage stops at the nearest trusted hop", "10.1.2.3:1", []string{"1.2.3.4, nonsense, 10.0.0.6"}, proxies, "10.0.0.6"},
		{"hop with port", "10.1.2.3:1", []string{"198.51.100.9:4321"}, proxies, "198.51.100.9"},
		{"IPv6 peer and hops", "[fd00::1]:443", []string{"2001:db8::7, fd00::2"}, proxies, "2001:db8::7"},
		{"IPv4-mapped peer counts as IPv4", "[::ffff:10.1.2.3]:1", []string{"198.51.100.9"}, proxies, "198.51.100.9"},
		{"empty hops skipped", "10.1.2.3:1", []string{"198.51.100.9, , "}, proxies, "198.51.100.9"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = c.peer
			for _, v := range c.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := ClientIP(r, c.trusted); got != c.want {
				t.Fatalf("got %s, want %s", got, c.want)
			}
		})
	}
}
