package realtime

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"casus/server/internal/authn"
	"casus/server/internal/db"
	"casus/server/internal/realtime/phoenix"
)

// The change feed: the changes of the tables of the supabase_realtime publication arrive
// from the WAL (wal.go), on every instance. Each change is delivered only to subscribers
// whose role and claims may SELECT that row — checked with the same role and settings as
// the data API (db.SendAsRole).
type changeFeed struct {
	s          *Server
	mu         sync.RWMutex
	tables     map[string]*tableInfo // "schema.table" → info, the published tables
	lastReload time.Time
}

type tableInfo struct {
	Schema, Name string
	Columns      []column
	PK           []column
	colIndex     map[string]column
	rls          bool
	// readable lists, per API role, the columns it may SELECT (column privileges): a
	// subscriber's filters see, and its changes carry, only those.
	readable map[string]map[string]bool
	// deleteCheck asks, as the subscriber, whether a deleted row ($1, its old record as
	// JSON) was visible: the row is gone, so the table's SELECT policies are evaluated on
	// the old record (see deleteCheckSQL).
	deleteCheck string
}

// policy is one permissive or restrictive SELECT (or ALL) policy of a published table.
type policy struct {
	permissive bool
	roles      []uint32 // 0 is PUBLIC
	qual       string   // pg_get_expr of the USING expression
}

type column struct {
	Name    string `json:"name"`
	Type    string `json:"type"` // udt name, as realtime-js's transformers expect ("int4", "text", …)
	sqlType string
}

const changesChannel = "casus_realtime_changes"

func newChangeFeed(s *Server) *changeFeed { return &changeFeed{s: s, tables: map[string]*tableInfo{}} }

func (f *changeFeed) start(ctx context.Context) error {
	if err := f.reload(ctx); err != nil {
		return err
	}
	f.s.wg.Add(2)
	go f.listen()
	go f.prune()
	return nil
}

// reload reads the published tables, their columns, primary keys and SELECT policies
// from the catalog. It runs at start, when the publication changes (realtime.sync_triggers
// notifies), on NOTIFY pgrst (the schema cache's reload signal, sent after migrations) and
// when a change arrives from a table the cache does not know — never for a join.
func (f *changeFeed) reload(ctx context.Context) error {
	f.mu.Lock()
	f.lastReload = time.Now()
	f.mu.Unlock()
	rows, err := f.s.d.Owner.Query(ctx, `
		select pt.schemaname, pt.tablename, a.attname, t.typname, format_type(a.atttypid, a.atttypmod),
		       coalesce(a.attnum = any(i.indkey), false), c.relrowsecurity
		from pg_publication_tables pt
		join pg_class c on c.relname = pt.tablename
		join pg_namespace n on n.oid = c.relnamespace and n.nspname = pt.schemaname
		join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
		join pg_type t on t.oid = a.atttypid
		left join pg_index i on i.indrelid = c.oid and i.indisprimary
		where pt.pubname = 'supabase_realtime'
		order by pt.schemaname, pt.tablename, a.attnum`)
	if err != nil {
		return fmt.Errorf("realtime: read publication: %w", err)
	}
	defer rows.Close()
	tables := map[string]*tableInfo{}
	for rows.Next() {
		var schema, table, name, typ, sqlType string
		var pk, rls bool
		if err := rows.Scan(&schema, &table, &name, &typ, &sqlType, &pk, &rls); err != nil {
			return err
		}
		key := schema + "." + table
		ti := tables[key]
		if ti == nil {
			ti = &tableInfo{Schema: schema, Name: table, colIndex: map[string]column{}, rls: rls}
			tables[key] = ti
		}
		col := column{Name: name, Type: strings.TrimPrefix(typ, "_"), sqlType: sqlType}
		if strings.HasPrefix(typ, "_") {
			col.Type = "_" + col.Type
		}
		ti.Columns = append(ti.Columns, col)
		ti.colIndex[name] = col
		if pk {
			ti.PK = append(ti.PK, col)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	policies, err := f.readPolicies(ctx)
	if err != nil {
		return err
	}
	if err := f.readColumnPrivileges(ctx, tables); err != nil {
		return err
	}
	for key, ti := range tables {
		ti.deleteCheck = deleteCheckSQL(ti, policies[key])
	}
	f.mu.Lock()
	f.tables = tables
	f.mu.Unlock()
	return nil
}

// readPolicies returns the SELECT and ALL policies with a USING expression, by "schema.table".
// The expressions are printed with an empty search path, so every function and table in
// them is schema-qualified and means the same in the subscriber's session.
func (f *changeFeed) readPolicies(ctx context.Context) (map[string][]policy, error) {
	out := map[string][]policy{}
	err := pgx.BeginFunc(ctx, f.s.d.Owner, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "set local search_path = pg_catalog"); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `
			select n.nspname, c.relname, p.polpermissive, p.polroles::oid[], pg_get_expr(p.polqual, p.polrelid)
			from pg_policy p
			join pg_class c on c.oid = p.polrelid
			join pg_namespace n on n.oid = c.relnamespace
			where p.polcmd in ('r', '*') and p.polqual is not null
			order by n.nspname, c.relname, p.polname`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var schema, table string
			var p policy
			if err := rows.Scan(&schema, &table, &p.permissive, &p.roles, &p.qual); err != nil {
				return err
			}
			out[schema+"."+table] = append(out[schema+"."+table], p)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("realtime: read policies: %w", err)
	}
	return out, nil
}

// readColumnPrivileges fills each table's readable columns for the roles a token may name
// (the service role reads everything).
func (f *changeFeed) readColumnPrivileges(ctx context.Context, tables map[string]*tableInfo) error {
	rows, err := f.s.d.Owner.Query(ctx, `
		select pt.schemaname, pt.tablename, r.rolname, a.attname
		from pg_publication_tables pt
		join pg_namespace n on n.nspname = pt.schemaname
		join pg_class c on c.relnamespace = n.oid and c.relname = pt.tablename
		join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
		join pg_roles r on r.rolname = any($1)
		where pt.pubname = 'supabase_realtime' and has_column_privilege(r.oid, c.oid, a.attnum, 'SELECT')`,
		[]string{authn.RoleAnon, authn.RoleAuthenticated})
	if err != nil {
		return fmt.Errorf("realtime: read column privileges: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var schema, table, role, col string
		if err := rows.Scan(&schema, &table, &role, &col); err != nil {
			return err
		}
		ti := tables[schema+"."+table]
		if ti == nil {
			continue
		}
		if ti.readable == nil {
			ti.readable = map[string]map[string]bool{}
		}
		if ti.readable[role] == nil {
			ti.readable[role] = map[string]bool{}
		}
		ti.readable[role][col] = true
	}
	return rows.Err()
}

// mayRead reports whether role may SELECT the column.
func (ti *tableInfo) mayRead(role, col string) bool {
	return role == authn.RoleServiceRole || ti.readable[role][col]
}

// deleteCheckSQL builds the visibility check of a deleted row. PostgreSQL applies row-level
// security only to rows it reads from the table, and a deleted row is no longer there, so
// the check puts the old record in a row of the table's type, named like the table, and
// evaluates what PostgreSQL would: the role's SELECT privilege, then (with RLS on, unless
// the role bypasses it) the OR of the permissive policies that apply to the role, AND every
// applicable restrictive one. The policy texts come from the catalog at load time.
func deleteCheckSQL(ti *tableInfo, policies []policy) string {
	table := pgx.Identifier{ti.Schema, ti.Name}.Sanitize()
	cond := "true"
	if ti.rls {
		applies := func(p policy) string {
			if slices.Contains(p.roles, 0) {
				return "true"
			}
			parts := make([]string, len(p.roles))
			for i, r := range p.roles {
				parts[i] = fmt.Sprintf("pg_has_role(%d::oid, 'USAGE')", r)
			}
			return strings.Join(parts, " or ")
		}
		permissive := []string{"false"}
		var restrictive []string
		for _, p := range policies {
			if p.permissive {
				permissive = append(permissive, fmt.Sprintf("((%s) and (%s))", applies(p), p.qual))
			} else {
				restrictive = append(restrictive, fmt.Sprintf("(not (%s) or (%s))", applies(p), p.qual))
			}
		}
		cond = "(" + strings.Join(permissive, " or ") + ")"
		if len(restrictive) > 0 {
			cond += " and " + strings.Join(restrictive, " and ")
		}
		cond = "(select rolbypassrls from pg_roles where rolname = current_user) or (" + cond + ")"
	}
	return "select has_table_privilege(" + quoteLiteral(table) + ", 'SELECT') and exists(select 1 from jsonb_populate_record(null::" +
		table + ", $1::jsonb) as " + pgx.Identifier{ti.Name}.Sanitize() + " where " + cond + ")"
}

// quoteLiteral quotes a string as an SQL literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func (f *changeFeed) table(schema, name string) *tableInfo {
	f.mu.RLock()
	defer f.mu.RUnlock()
	return f.tables[schema+"."+name]
}

// validate checks a subscription request against the publication and assigns its id.
func (f *changeFeed) validate(event, schema, table, filter string, selectRaw json.RawMessage) (pgSub, error) {
	switch event {
	case "*", "INSERT", "UPDATE", "DELETE":
	default:
		return pgSub{}, fmt.Errorf("invalid postgres_changes event %q", event)
	}
	if schema == "" {
		schema = "public"
	}
	sub := pgSub{Event: event, Schema: schema, Table: table, Filter: filter}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	sub.ID = binary.BigEndian.Uint32(b) & 0x7fffffff
	selected, err := parseSelect(selectRaw)
	sub.Select = selected
	if err != nil {
		return sub, err
	}
	if table == "" || table == "*" || schema == "*" {
		if selected != nil {
			return sub, &filterError{"Column selection is not supported for wildcard subscriptions. Provide an explicit schema and table name."}
		}
	}
	if table == "" || table == "*" {
		if filter != "" {
			return pgSub{}, fmt.Errorf("a filter needs a table")
		}
		return sub, nil
	}
	// The cached list answers: a join never costs a catalog query (reload keeps it fresh).
	ti := f.table(schema, table)
	if ti == nil {
		return pgSub{}, fmt.Errorf("Unable to subscribe to changes with given parameters: table %s.%s is not in the supabase_realtime publication", schema, table)
	}
	cf, err := parseFilter(filter)
	if err != nil {
		return sub, err
	}
	selectLog := "nil"
	if selected != nil {
		selectLog = elixirList(selected...)
	}
	err = cf.bind(func(name string) (string, string) {
		col, ok := ti.colIndex[name]
		if !ok {
			return "", ""
		}
		return col.Type, col.sqlType
	})
	if err == nil {
		for _, col := range selected {
			if _, ok := ti.colIndex[col]; !ok {
				err = fmt.Errorf("invalid column for select %s", col)
				break
			}
		}
	}
	if err != nil {
		// Realtime's subscription_check_filters raises this inside the insert of the
		// subscription, and the channel reports it in that wrapper.
		return sub, &filterError{fmt.Sprintf("Unable to subscribe to changes with given parameters. An exception happened so please check your connect parameters: [event: %s, schema: %s, table: %s, filters: %s, select: %s]. Exception: ERROR P0001 (raise_exception) %s",
			event, schema, table, cf.logForm(), selectLog, err)}
	}
	sub.filter = cf
	return sub, nil
}

// drainBatches hands what arrives on ch to handle in batches: it waits for one item,
// then takes whatever else is already queued (at most 500), so a burst is handled
// together. It returns when ctx ends.
func drainBatches[T any](ctx context.Context, ch <-chan T, handle func([]T)) {
	for {
		var batch []T
		select {
		case item := <-ch:
			batch = append(batch, item)
		case <-ctx.Done():
			return
		}
	drain:
		for len(batch) < 500 {
			select {
			case item := <-ch:
				batch = append(batch, item)
			default:
				break drain
			}
		}
		handle(batch)
	}
}

// change is one committed row change of a published table, its values as to_jsonb renders
// them (see walvalues.go).
type change struct {
	Schema    string                     `json:"s"`
	Table     string                     `json:"t"`
	Type      string                     `json:"y"`
	Record    map[string]json.RawMessage `json:"r,omitempty"`
	OldRecord map[string]json.RawMessage `json:"o,omitempty"`
	Commit    time.Time                  `json:"c"`
}

// listen reloads the published tables when the publication changes
// (realtime.sync_triggers notifies) and on NOTIFY pgrst. (Waiting on the connection with
// a short timeout instead would make pgx close it.)
func (f *changeFeed) listen() {
	defer f.s.wg.Done()
	listening := f.s.listeningOnce()
	for f.s.ctx.Err() == nil {
		conn, err := pgx.Connect(f.s.ctx, f.s.d.DatabaseURL)
		if err == nil {
			_, err = conn.Exec(f.s.ctx, "listen "+changesChannel+"; listen pgrst")
		}
		if err == nil {
			listening()
			// A publication change committed before LISTEN took effect (at start, or while
			// reconnecting) notified nobody: read the tables again now that we listen.
			if rerr := f.reload(f.s.ctx); rerr != nil && f.s.ctx.Err() == nil {
				f.s.d.Log.Error("realtime: reload tables", "err", rerr)
			}
		}
		for err == nil {
			var n *pgconn.Notification
			n, err = conn.WaitForNotification(f.s.ctx)
			if err != nil {
				break
			}
			if n.Payload == "" || n.Payload == "reload schema" || n.Payload == "reload" {
				if rerr := f.reload(f.s.ctx); rerr != nil && f.s.ctx.Err() == nil {
					f.s.d.Log.Error("realtime: reload tables", "err", rerr)
				}
			}
		}
		if conn != nil {
			_ = conn.Close(context.Background())
		}
		if f.s.ctx.Err() == nil {
			f.s.d.Log.Warn("realtime: change listener reconnecting", "err", err)
		}
		select {
		case <-f.s.ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// visibilityChecks is how many row checks (canSee) of one batch of changes are in flight
// at once, each on an API connection: half the API pool (at least 2), so that the data
// API keeps connections while a burst is checked. Run one after another, a burst of
// changes for many subscribers waited for a round trip per subscriber in turn: under 200
// students, whose writes each match one subscriber, pushes came seconds late on a busy
// machine.
func (f *changeFeed) visibilityChecks() int {
	return max(2, int(f.s.d.API.Config().MaxConns)/2)
}

// deliver pushes a batch of changes, in order, to the local subscriptions each matches and
// may see. The row checks the batch needs (one per change and subscriber identity) are
// found first with a dry run of dispatch and made concurrently; the deliveries then
// follow in change order, so a channel still receives its changes in commit order.
func (f *changeFeed) deliver(changes []change) {
	type check struct {
		i      int
		who    string
		claims *authn.Claims
		ti     *tableInfo
	}
	type key struct {
		i   int
		who string
	}
	// The channels each change may reach (subIndex), found once for both passes.
	candidates := make([][]*channel, len(changes))
	tis := make([]*tableInfo, len(changes))
	var checks []check
	needed := map[key]bool{}
	for i, c := range changes {
		if tis[i] = f.tableOf(c); tis[i] == nil {
			continue
		}
		candidates[i] = f.s.changeCandidates(c)
		f.dispatch(c, tis[i], candidates[i], func(who string, claims *authn.Claims) bool {
			if k := (key{i, who}); !needed[k] {
				needed[k] = true
				checks = append(checks, check{i, who, claims, tis[i]})
			}
			return false // a dry run: nothing is pushed
		})
	}
	visible := make([]bool, len(checks))
	// The checks of inserts and updates go in groups of visibilityBatch, each group one
	// round trip on one connection (SendEachAsRole): under load a connection of the API
	// pool is a long wait, and paying it per check made a burst's pushes fall behind by
	// more and more. Deletes (a transaction each, see couldSeeDeleted) go alone.
	var jobs [][]int
	var group []int
	for j, ch := range checks {
		switch {
		case ch.claims.Role == authn.RoleServiceRole:
			visible[j] = true
		case changes[ch.i].Type == "DELETE":
			jobs = append(jobs, []int{j})
		default:
			if group = append(group, j); len(group) == visibilityBatch {
				jobs, group = append(jobs, group), nil
			}
		}
	}
	if len(group) > 0 {
		jobs = append(jobs, group)
	}
	var wg sync.WaitGroup
	next := make(chan []int)
	for range min(f.visibilityChecks(), len(jobs)) {
		wg.Go(func() {
			for job := range next {
				if len(job) == 1 {
					visible[job[0]] = f.canSee(checks[job[0]].claims, checks[job[0]].ti, changes[checks[job[0]].i])
					continue
				}
				res := f.canSeeEach(len(job), func(k int) (*authn.Claims, *tableInfo, change) {
					ch := checks[job[k]]
					return ch.claims, ch.ti, changes[ch.i]
				})
				for k, j := range job {
					visible[j] = res[k]
				}
			}
		})
	}
	for _, job := range jobs {
		next <- job
	}
	close(next)
	wg.Wait()
	seen := make(map[key]bool, len(checks))
	for j, ch := range checks {
		seen[key{ch.i, ch.who}] = visible[j]
	}
	for i, c := range changes {
		if tis[i] == nil {
			continue
		}
		f.dispatch(c, tis[i], candidates[i], func(who string, _ *authn.Claims) bool { return seen[key{i, who}] })
	}
}

// tableOf is the cached table of a change, or nil when it is not (or no longer) published.
func (f *changeFeed) tableOf(c change) *tableInfo {
	ti := f.table(c.Schema, c.Table)
	if ti == nil {
		// Only a published table's changes are streamed: the cache is stale. One reload a
		// second at most, however many such changes arrive.
		f.mu.RLock()
		recent := time.Since(f.lastReload) < time.Second
		f.mu.RUnlock()
		if recent {
			return nil
		}
		_ = f.reload(f.s.ctx)
		ti = f.table(c.Schema, c.Table)
	}
	return ti
}

// subscribedTables lists the tables the local postgres_changes subscriptions name; every
// is true when one of them takes any table. (A channel's subscriptions are fixed before it
// is registered, so reading them needs no lock.)
func (f *changeFeed) subscribedTables() (tables []string, every bool) {
	f.s.mu.RLock()
	defer f.s.mu.RUnlock()
	return f.s.subs.tableNames()
}

// dispatch delivers one change to every one of channels' subscriptions it matches and
// may see; visible answers, per subscriber identity (role/subject), whether the row is
// visible to it (deliver has asked PostgreSQL already; its dry run records the questions).
func (f *changeFeed) dispatch(c change, ti *tableInfo, channels []*channel, visible func(who string, claims *authn.Claims) bool) {
	row := c.Record
	if c.Type == "DELETE" {
		row = c.OldRecord
	}
	// A subscriber receives a change when its row-level security lets it see the row AND a
	// filter matches, and a filter is only ever evaluated on a column its role may SELECT.
	// For a DELETE the row check comes first too: the filter runs only on an old row the
	// subscriber was allowed to see. For INSERT and UPDATE the row check (a round trip)
	// follows the filter, as in Supabase, so a filter that does not match spares it; the
	// subscriber still receives nothing unless both hold.
	privilegeFirst := c.Type == "DELETE"
	dataByRole := map[string]map[string]any{}
	sees := func(ch *channel) bool {
		// By caller identity, so one check serves many channels.
		claims := ch.currentClaims()
		return visible(claims.Role+"/"+claims.Subject, claims)
	}
	for _, ch := range channels {
		var ids []uint32
		var idsSelect [][]string // the select of each matched subscription
		checked := false
		role := ch.currentClaims().Role
		for _, sub := range ch.pgSubs {
			if sub.Schema != c.Schema && sub.Schema != "*" {
				continue
			}
			if sub.Table != "" && sub.Table != "*" && sub.Table != c.Table {
				continue
			}
			if sub.Event != "*" && sub.Event != c.Type {
				continue
			}
			if privilegeFirst && !checked {
				if !sees(ch) {
					break
				}
				checked = true
			}
			// The role's column privileges come before any filter: a filter on a column it
			// may not read never matches.
			if !sub.filter.readableBy(ti, role) {
				continue
			}
			if !sub.filter.matches(row) {
				continue
			}
			ids = append(ids, sub.ID)
			idsSelect = append(idsSelect, sub.Select)
		}
		if len(ids) == 0 {
			continue
		}
		if !checked && !sees(ch) {
			continue
		}
		// One push per distinct column selection, as Realtime's apply_rls fans out.
		var order []string
		groups := map[string][]uint32{}
		selects := map[string][]string{}
		for i, id := range ids {
			key := strings.Join(idsSelect[i], ",")
			if idsSelect[i] == nil {
				key = "\x00all"
			}
			if _, ok := groups[key]; !ok {
				order = append(order, key)
				selects[key] = idsSelect[i]
			}
			groups[key] = append(groups[key], id)
		}
		for _, key := range order {
			dk := role + "|" + key
			data, ok := dataByRole[dk]
			if !ok {
				data = changeData(ti, c, role, selects[key])
				dataByRole[dk] = data
			}
			ch.c.push(phoenix.Push(ch.joinRef, ch.topic, "postgres_changes", map[string]any{"ids": groups[key], "data": data}))
		}
	}
}

// changeData is the "data" of a postgres_changes push for a role: only the columns it may
// SELECT, as Supabase sends them.
//
// With a column selection, only the selected columns and the primary key are sent.
func changeData(ti *tableInfo, c change, role string, selected []string) map[string]any {
	sends := func(name string) bool {
		if !ti.mayRead(role, name) {
			return false
		}
		if selected == nil || slices.Contains(selected, name) {
			return true
		}
		return slices.ContainsFunc(ti.PK, func(pk column) bool { return pk.Name == name })
	}
	columns := make([]column, 0, len(ti.Columns))
	for _, col := range ti.Columns {
		if sends(col.Name) {
			columns = append(columns, col)
		}
	}
	data := map[string]any{
		"schema": c.Schema, "table": c.Table, "type": c.Type, "errors": nil,
		"commit_timestamp": c.Commit.UTC().Format("2006-01-02T15:04:05.000Z"),
		"columns":          columns,
	}
	if c.Type != "DELETE" {
		record := make(map[string]json.RawMessage, len(c.Record))
		for name, v := range c.Record {
			if sends(name) {
				record[name] = v
			}
		}
		data["record"] = record
	}
	if c.Type != "INSERT" {
		// Like Supabase with the default replica identity: the old row's primary key only.
		old := map[string]json.RawMessage{}
		for _, pk := range ti.PK {
			if v, ok := c.OldRecord[pk.Name]; ok {
				old[pk.Name] = v
			}
		}
		data["old_record"] = old
	}
	return data
}

// canSee asks PostgreSQL, as the subscriber, whether the changed row is visible:
// for inserts and updates, a SELECT of the row by primary key under RLS; for deletes
// (the row is gone) the table's SELECT policies evaluated on the old row (deleteCheckSQL).
func (f *changeFeed) canSee(claims *authn.Claims, ti *tableInfo, c change) bool {
	if claims.Role == authn.RoleServiceRole {
		return true
	}
	ctx, cancel := context.WithTimeout(f.s.ctx, 5*time.Second)
	defer cancel()
	if c.Type == "DELETE" {
		return f.couldSeeDeleted(ctx, claims, ti, c)
	}
	q, qargs, identified := rowCheck(ti, c)
	if !identified {
		return false
	}
	conn, err := f.s.d.API.Acquire(ctx)
	if err != nil {
		f.checkFailed(c, err)
		return false
	}
	defer conn.Release()
	// One round trip, as the data API makes it: role and claims, read-only, the check.
	var ok bool
	info := db.RequestInfo{Method: "GET", Path: "/realtime/v1"}
	err = db.SendAsRole(ctx, conn.Conn(), claims, db.ReadOnly, info, false, func(b *pgx.Batch) {
		b.Queue(q, qargs...).QueryRow(func(r pgx.Row) error { return r.Scan(&ok) })
	})
	if err != nil {
		f.checkFailed(c, err)
		return false
	}
	return ok
}

// checkFailed logs a row check that got no answer (timeout, no connection): the change is
// not delivered to that subscriber, which must not go unnoticed.
func (f *changeFeed) checkFailed(c change, err error) {
	if f.s.ctx.Err() == nil {
		f.s.d.Log.Warn("realtime: row check failed; change not delivered to a subscriber",
			"schema", c.Schema, "table", c.Table, "type", c.Type, "err", err)
	}
}

// rowCheck is the statement that finds an inserted or updated row by its primary key
// (visible or not as the caller's RLS decides); false when the row cannot be identified.
func rowCheck(ti *tableInfo, c change) (string, []any, bool) {
	if len(ti.PK) == 0 {
		return "", nil, false // without a key the row cannot be identified safely
	}
	conds := make([]string, len(ti.PK))
	var qargs []any
	for i, pk := range ti.PK {
		v, ok := jsonText(c.Record[pk.Name])
		if !ok {
			return "", nil, false
		}
		conds[i] = fmt.Sprintf("%s = $%d::text::%s", pgx.Identifier{pk.Name}.Sanitize(), i+1, pk.sqlType)
		qargs = append(qargs, v)
	}
	return "select exists(select 1 from " + pgx.Identifier{ti.Schema, ti.Name}.Sanitize() + " where " + strings.Join(conds, " and ") + ")", qargs, true
}

// visibilityBatch is how many row checks share one round trip in canSeeEach.
const visibilityBatch = 50

// canSeeEach is canSee for n inserted or updated rows, each for its own subscriber, in
// one round trip: each check is its own read-only transaction as its subscriber
// (db.SendEachAsRole). Should the batch fail, the checks without an answer are made one
// by one.
func (f *changeFeed) canSeeEach(n int, get func(k int) (*authn.Claims, *tableInfo, change)) []bool {
	seen := make([]bool, n)
	answered := make([]bool, n)
	var items []db.RoleQueue
	var idx []int
	for k := range n {
		claims, ti, c := get(k)
		q, qargs, ok := rowCheck(ti, c)
		if !ok {
			answered[k] = true
			continue
		}
		items = append(items, db.RoleQueue{Claims: claims, Queue: func(b *pgx.Batch) {
			b.Queue(q, qargs...).QueryRow(func(r pgx.Row) error {
				if err := r.Scan(&seen[k]); err != nil {
					return err
				}
				answered[k] = true
				return nil
			})
		}})
		idx = append(idx, k)
	}
	if len(items) > 0 {
		ctx, cancel := context.WithTimeout(f.s.ctx, 5*time.Second)
		err := func() error {
			conn, err := f.s.d.API.Acquire(ctx)
			if err != nil {
				return err
			}
			defer conn.Release()
			return db.SendEachAsRole(ctx, conn.Conn(), db.RequestInfo{Method: "GET", Path: "/realtime/v1"}, items)
		}()
		cancel()
		if err != nil {
			f.s.d.Log.Debug("realtime: visibility checks failed", "err", err)
		}
	}
	for _, k := range idx {
		if !answered[k] {
			claims, ti, c := get(k)
			seen[k] = f.canSee(claims, ti, c)
		}
	}
	return seen
}

// couldSeeDeleted runs a table's deleteCheck as the subscriber. The check's text holds the
// policies' expressions (auth.uid() …), which only the subscriber's role may resolve, so it
// is parsed after the role switch: a transaction of its own, not the one-round-trip batch
// (pgx prepares a batch's statements before any of them runs). Deletes are rare enough.
func (f *changeFeed) couldSeeDeleted(ctx context.Context, claims *authn.Claims, ti *tableInfo, c change) bool {
	old, err := json.Marshal(c.OldRecord)
	if err != nil || len(c.OldRecord) == 0 {
		return false
	}
	var ok bool
	info := db.RequestInfo{Method: "GET", Path: "/realtime/v1"}
	err = db.AsRole(ctx, f.s.d.API, claims, db.ReadOnly, info, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, ti.deleteCheck, string(old)).Scan(&ok)
	})
	if err != nil {
		f.checkFailed(c, err)
		return false
	}
	return ok
}

// jsonText is a JSON scalar as PostgreSQL's text input expects it (numbers verbatim,
// strings unquoted), so no precision is lost through float64.
func jsonText(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", false
		}
		return s, true
	}
	return string(raw), true
}

// prune removes old broadcast messages.
func (f *changeFeed) prune() {
	defer f.s.wg.Done()
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-f.s.ctx.Done():
			return
		case <-t.C:
			// Broadcast messages are kept 72 hours for replay, as Supabase keeps them.
			_, _ = f.s.d.Owner.Exec(f.s.ctx, "delete from realtime.messages where inserted_at < timezone('utc', now()) - interval '72 hours'")
		}
	}
}
