// Command realtime benchmarks /realtime/v1/websocket with 1,000 concurrent clients on
// loopback against a casus server process, and prints each figure as a ratio to a
// baseline measured in the same run:
//   - delivery latency of a row change to the one client allowed to see it (RLS and a
//     filter per client), against a raw INSERT + LISTEN/NOTIFY round trip, with one server
//     and then with two on the same database (clients split between them; one of the two
//     reads the WAL and hands the changes to the other);
//   - server memory per idle connection (RSS delta / connections), against the 64 kB target;
//   - broadcast messages delivered per second between clients, against a bare
//     gorilla/websocket fan-out server doing the same work in this process.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5"

	"casus/scripts/bench/internal/benchutil"
)

const (
	clients      = 1000
	changes      = 2000
	changeRate   = 250 // per second
	rooms        = 20
	senders      = 20
	perSender    = 500
	baselineRuns = 500
)

func main() {
	ctx := context.Background()
	dbURL, drop, err := benchutil.TempDatabase(ctx, "casus_bench_rt")
	if err != nil {
		log.Fatal(err)
	}
	defer drop()
	srv, err := benchutil.StartServer(ctx, dbURL)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Stop()
	owner, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		log.Fatal(err)
	}
	defer owner.Close(ctx)
	if _, err := owner.Exec(ctx, `
		create table public.bench_rt (id bigserial primary key, owner uuid not null, body text not null);
		alter table public.bench_rt enable row level security;
		grant select on public.bench_rt to authenticated;
		create policy own on public.bench_rt for select to authenticated using (owner = auth.uid());
		alter publication supabase_realtime add table public.bench_rt;
		select realtime.sync_triggers();
		create table public.bench_plain (id bigserial primary key, body text);`); err != nil {
		log.Fatal(err)
	}

	fmt.Printf("realtime benchmark: %d websocket clients on loopback, server pid %d\n", clients, srv.Cmd.Process.Pid)
	// The publication change reaches the server's table cache by notification: wait until
	// the new table can be subscribed to.
	probe, err := dial(srv.URL)
	if err != nil {
		log.Fatal(err)
	}
	sub := map[string]any{"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "bench_rt"}}}
	for start := time.Now(); probe.join("realtime:ready", sub, benchutil.Token("authenticated", uuid(), time.Hour)) != nil; time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			log.Fatal("bench_rt never became subscribable")
		}
	}
	probe.ws.Close()
	time.Sleep(500 * time.Millisecond)
	rssBefore := srv.RSS()

	// Connect everyone: each client subscribes to its own rows.
	conns, owners := connectAll([]string{srv.URL})
	time.Sleep(2 * time.Second)
	rssAfter := srv.RSS()
	perConn := float64(rssAfter-rssBefore) / clients

	// Baseline: INSERT + NOTIFY seen by a LISTENing connection, no websocket, no RLS.
	lis, _ := pgx.Connect(ctx, dbURL)
	defer lis.Close(ctx)
	lis.Exec(ctx, "listen bench_baseline")
	var base []time.Duration
	for i := 0; i < baselineRuns; i++ {
		t0 := time.Now()
		if _, err := owner.Exec(ctx, "with r as (insert into bench_plain (body) values ('x') returning id) select pg_notify('bench_baseline', id::text) from r"); err != nil {
			log.Fatal(err)
		}
		if _, err := lis.WaitForNotification(ctx); err != nil {
			log.Fatal(err)
		}
		base = append(base, time.Since(t0))
	}

	one := deliveryRun(ctx, owner, conns, owners)
	bP50, bP99 := benchutil.Percentile(base, 50), benchutil.Percentile(base, 99)
	fmt.Printf("\n-- postgres_changes delivery (%d changes at %d/s, each to 1 of %d clients)\n", changes, changeRate, clients)
	fmt.Printf("baseline INSERT+NOTIFY:   p50 %s  p99 %s\n", benchutil.MS(bP50), benchutil.MS(bP99))
	one.print("one server", bP50, bP99)
	fmt.Printf("\n-- memory: server RSS %d MB → %d MB with %d idle subscribed connections\n", rssBefore>>20, rssAfter>>20, clients)
	fmt.Printf("per connection: %.1f kB   (target < 64 kB: ratio %.2f)\n", perConn/1024, perConn/(64*1024))

	// Broadcast: the same clients in rooms of 50; senders broadcast, everyone else receives.
	for _, c := range conns {
		c.onData.Store(nil)
	}
	rate := broadcastRun(conns, func(c *client, room string) error {
		return c.join(room, map[string]any{"broadcast": map[string]any{"self": false}}, benchutil.Token("authenticated", uuid(), time.Hour))
	})
	for _, c := range conns {
		c.ws.Close()
	}
	baseRate := bareBroadcast()

	// Two servers on the database: the clients split between them.
	srv2, err := benchutil.StartServer(ctx, dbURL)
	if err != nil {
		log.Fatal(err)
	}
	defer srv2.Stop()
	conns2, owners2 := connectAll([]string{srv.URL, srv2.URL})
	two := deliveryRun(ctx, owner, conns2, owners2)
	for _, c := range conns2 {
		c.ws.Close()
	}
	fmt.Printf("\n-- broadcast: %d senders × %d messages into %d rooms of %d clients\n", senders, perSender, rooms, clients/rooms)
	fmt.Printf("casus realtime:      %.0f messages/s delivered   (target ≥ 20,000: ratio %.2f)\n", rate, rate/20000)
	fmt.Printf("bare websocket hub:  %.0f messages/s delivered   (ratio casus/bare %.2f)\n", baseRate, rate/baseRate)
	fmt.Printf("\n-- postgres_changes delivery with two servers (%d clients split between them)\n", clients)
	two.print("two servers", bP50, bP99)
	if one.wrong > 0 || two.wrong > 0 || one.delivered < changes || two.delivered < changes {
		// os.Exit skips deferred calls: stop the servers and drop the database first.
		srv2.Stop()
		srv.Stop()
		owner.Close(ctx)
		drop()
		os.Exit(1)
	}
}

type delivery struct {
	delivered int
	wrong     int64
	twice     int64
	p50, p99  time.Duration
}

func (d delivery) print(what string, bP50, bP99 time.Duration) {
	fmt.Printf("%s: delivered %d/%d, to the wrong client: %d, twice: %d\n", what, d.delivered, changes, d.wrong, d.twice)
	fmt.Printf("realtime delivery:        p50 %s  p99 %s   (target p99 < 150 ms)\n", benchutil.MS(d.p50), benchutil.MS(d.p99))
	fmt.Printf("ratio realtime/baseline:  p50 %.1fx  p99 %.1fx;  p99 vs target: %.2f of 150 ms\n",
		float64(d.p50)/float64(bP50), float64(d.p99)/float64(bP99), float64(d.p99)/float64(150*time.Millisecond))
}

// connectAll connects the clients, round-robin over the servers, each subscribed to its
// own rows.
func connectAll(urls []string) ([]*client, []string) {
	owners := make([]string, clients)
	conns := make([]*client, clients)
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		owners[i] = uuid()
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := dial(urls[i%len(urls)])
			if err != nil {
				errs <- err
				return
			}
			filter := "owner=eq." + owners[i]
			if err := c.join(fmt.Sprintf("realtime:own-%d", i), map[string]any{
				"postgres_changes": []any{map[string]any{"event": "INSERT", "schema": "public", "table": "bench_rt", "filter": filter}},
			}, benchutil.Token("authenticated", owners[i], time.Hour)); err != nil {
				errs <- err
				return
			}
			conns[i] = c
		}(i)
		if i%100 == 99 {
			wg.Wait()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		log.Fatal("connect: ", err)
	}
	return conns, owners
}

// deliveryRun inserts changes at changeRate, each for one client, and measures how long
// each takes to reach it.
func deliveryRun(ctx context.Context, owner *pgx.Conn, conns []*client, owners []string) delivery {
	var mu sync.Mutex
	sent := map[string]time.Time{}
	seen := map[string]bool{}
	var lat []time.Duration
	var wrong, twice atomic.Int64
	for i, c := range conns {
		i := i
		fn := func(data []byte) {
			if !bytes.Contains(data, []byte(`"postgres_changes"`)) {
				return
			}
			var m []json.RawMessage
			if json.Unmarshal(data, &m) != nil || len(m) != 5 || string(m[3]) != `"postgres_changes"` {
				return // the join's system message names the extension too
			}
			var p struct {
				Data struct {
					Record struct {
						Owner string `json:"owner"`
						Body  string `json:"body"`
					} `json:"record"`
				} `json:"data"`
			}
			_ = json.Unmarshal(m[4], &p)
			if p.Data.Record.Owner != owners[i] {
				wrong.Add(1)
			}
			mu.Lock()
			if seen[p.Data.Record.Body] {
				twice.Add(1)
			} else if t0, ok := sent[p.Data.Record.Body]; ok {
				seen[p.Data.Record.Body] = true
				lat = append(lat, time.Since(t0))
			}
			mu.Unlock()
		}
		c.onData.Store(&fn)
	}
	run := uuid()[:8]
	tick := time.NewTicker(time.Second / changeRate)
	for n := 0; n < changes; n++ {
		<-tick.C
		body := fmt.Sprintf("%s-c%d", run, n)
		mu.Lock()
		sent[body] = time.Now()
		mu.Unlock()
		if _, err := owner.Exec(ctx, "insert into bench_rt (owner, body) values ($1, $2)", owners[n%len(owners)], body); err != nil {
			log.Fatal(err)
		}
	}
	tick.Stop()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		mu.Lock()
		n := len(lat)
		mu.Unlock()
		if n >= changes {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // late duplicates, if any
	for _, c := range conns {
		c.onData.Store(nil)
	}
	mu.Lock()
	defer mu.Unlock()
	return delivery{delivered: len(lat), wrong: wrong.Load(), twice: twice.Load(),
		p50: benchutil.Percentile(lat, 50), p99: benchutil.Percentile(lat, 99)}
}

// broadcastRun joins rooms and measures delivered broadcasts per second.
func broadcastRun(conns []*client, join func(*client, string) error) float64 {
	var got atomic.Int64
	for i, c := range conns {
		room := fmt.Sprintf("realtime:room-%d", i%rooms)
		if err := join(c, room); err != nil {
			log.Fatal("broadcast join: ", err)
		}
		c.room = room
		count := func(data []byte) {
			if bytes.Contains(data, []byte(`"broadcast"`)) {
				got.Add(1)
			}
		}
		c.onData.Store(&count)
	}
	time.Sleep(300 * time.Millisecond)
	expected := int64(senders * perSender * (len(conns)/rooms - 1))
	start := time.Now()
	var wg sync.WaitGroup
	for s := 0; s < senders; s++ {
		wg.Add(1)
		go func(c *client) {
			defer wg.Done()
			for n := 0; n < perSender; n++ {
				_ = c.send(c.room, "broadcast", map[string]any{"type": "broadcast", "event": "tick", "payload": map[string]any{"n": n}})
			}
		}(conns[s])
	}
	wg.Wait()
	for time.Since(start) < 20*time.Second && got.Load() < expected {
		time.Sleep(10 * time.Millisecond)
	}
	return float64(got.Load()) / time.Since(start).Seconds()
}

// bareBroadcast is the baseline: a minimal gorilla/websocket room fan-out in-process.
func bareBroadcast() float64 {
	var mu sync.Mutex
	roomsMap := map[string][]*websocket.Conn{}
	locks := map[*websocket.Conn]*sync.Mutex{}
	up := websocket.Upgrader{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		room := r.URL.Query().Get("room")
		mu.Lock()
		roomsMap[room] = append(roomsMap[room], ws)
		locks[ws] = &sync.Mutex{}
		mu.Unlock()
		for {
			_, data, err := ws.ReadMessage()
			if err != nil {
				return
			}
			mu.Lock()
			peers := roomsMap[room]
			mu.Unlock()
			for _, p := range peers {
				if p != ws {
					l := locks[p]
					l.Lock()
					_ = p.WriteMessage(websocket.TextMessage, data)
					l.Unlock()
				}
			}
		}
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go http.Serve(ln, h)
	conns := make([]*client, clients)
	for i := range conns {
		ws, _, err := websocket.DefaultDialer.Dial(fmt.Sprintf("ws://%s/?room=%d", ln.Addr(), i%rooms), nil)
		if err != nil {
			log.Fatal(err)
		}
		conns[i] = &client{ws: ws, room: fmt.Sprint(i % rooms)}
		go conns[i].read(nil)
	}
	rate := broadcastRun(conns, func(*client, string) error { return nil })
	for _, c := range conns {
		c.ws.Close()
	}
	ln.Close()
	return rate
}

type client struct {
	ws      *websocket.Conn
	wmu     sync.Mutex
	ref     atomic.Int64
	room    string
	onData  atomic.Pointer[func([]byte)]
	replies chan string
}

func dial(base string) (*client, error) {
	u := strings.Replace(base, "http", "ws", 1) + "/realtime/v1/websocket?" + url.Values{"apikey": {benchutil.Token("anon", "", 24*time.Hour)}, "vsn": {"2.0.0"}}.Encode()
	ws, _, err := websocket.DefaultDialer.Dial(u, nil)
	if err != nil {
		return nil, err
	}
	c := &client{ws: ws, replies: make(chan string, 4)}
	go c.read(nil)
	return c, nil
}

func (c *client) read(fn func([]byte)) {
	if fn != nil {
		c.onData.Store(&fn)
		return
	}
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		if bytes.Contains(data, []byte(`"phx_reply"`)) && c.replies != nil {
			select {
			case c.replies <- string(data):
			default:
			}
		}
		if f := c.onData.Load(); f != nil {
			(*f)(data)
		}
	}
}

func (c *client) send(topic, event string, payload any) error {
	ref := fmt.Sprint(c.ref.Add(1))
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.ws.WriteJSON([]any{"1", ref, topic, event, payload})
}

func (c *client) join(topic string, config map[string]any, token string) error {
	if err := c.send(topic, "phx_join", map[string]any{"config": config, "access_token": token}); err != nil {
		return err
	}
	select {
	case r := <-c.replies:
		if !strings.Contains(r, `"ok"`) {
			return fmt.Errorf("join refused: %s", r)
		}
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("join timed out")
	}
}

func uuid() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
