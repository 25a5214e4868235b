package realtime

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pglogrepl"
)

// pgoutput sends column values in PostgreSQL's text form; subscribers receive them as
// to_jsonb would render the row (numbers as numbers, timestamps in ISO 8601 with a "T",
// arrays as arrays…), as the capture trigger sent them before and Supabase sends them.
// The common built-in types are converted here; any other type (arrays, enums, domains,
// composites, json…) by PostgreSQL itself, one query per batch for all of them.

// jsonValue is one column value: converted, or waiting for resolve.
type jsonValue struct {
	raw  json.RawMessage
	text string
}

type valueDecoder struct {
	w       *walReader
	pending map[uint32][]*jsonValue // by type oid
}

func newValueDecoder(w *walReader) *valueDecoder {
	return &valueDecoder{w: w, pending: map[uint32][]*jsonValue{}}
}

// Type oids converted without PostgreSQL's help.
const (
	oidBool        = 16
	oidBytea       = 17
	oidName        = 19
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidFloat4      = 700
	oidFloat8      = 701
	oidBpchar      = 1042
	oidVarchar     = 1043
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestamptz = 1184
	oidInterval    = 1186
	oidTimetz      = 1266
	oidNumeric     = 1700
	oidUUID        = 2950
	oidJSONB       = 3802
)

// tuple decodes a tuple's columns; an unchanged TOASTed value (not in the WAL) is taken
// from fallback, the old row, when the table's replica identity is full.
func (d *valueDecoder) tuple(rel *pglogrepl.RelationMessage, td *pglogrepl.TupleData, fallback map[string]*jsonValue) map[string]*jsonValue {
	if td == nil {
		return nil
	}
	out := make(map[string]*jsonValue, len(td.Columns))
	for i, col := range td.Columns {
		if i >= len(rel.Columns) {
			break
		}
		rc := rel.Columns[i]
		switch col.DataType {
		case pglogrepl.TupleDataTypeNull:
			out[rc.Name] = &jsonValue{raw: json.RawMessage("null")}
		case pglogrepl.TupleDataTypeToast:
			if v, ok := fallback[rc.Name]; ok {
				out[rc.Name] = v
			}
		case pglogrepl.TupleDataTypeText:
			v := &jsonValue{text: string(col.Data)}
			if raw, ok := quickJSON(rc.DataType, v.text); ok {
				v.raw = raw
			} else {
				d.pending[rc.DataType] = append(d.pending[rc.DataType], v)
			}
			out[rc.Name] = v
		}
	}
	return out
}

// quickJSON is to_jsonb of a value of a common built-in type, from its text form.
func quickJSON(oid uint32, text string) (json.RawMessage, bool) {
	str := func(s string) (json.RawMessage, bool) {
		b, err := json.Marshal(s)
		return b, err == nil
	}
	switch oid {
	case oidBool:
		if text == "t" {
			return json.RawMessage("true"), true
		}
		return json.RawMessage("false"), true
	case oidInt2, oidInt4, oidInt8:
		return json.RawMessage(text), true
	case oidFloat4, oidFloat8, oidNumeric:
		// NaN and the infinities are strings in to_jsonb; every other value is a number.
		if _, err := strconv.ParseFloat(text, 64); err != nil || strings.ContainsAny(text, "NnIi") {
			return str(text)
		}
		return json.RawMessage(text), true
	case oidText, oidVarchar, oidBpchar, oidName, oidUUID, oidBytea, oidTime, oidTimetz, oidInterval:
		return str(text)
	case oidJSONB:
		if json.Valid([]byte(text)) {
			return json.RawMessage(text), true
		}
	case oidDate, oidTimestamp, oidTimestamptz:
		if strings.Contains(text, "BC") || !strings.ContainsAny(text, "0123456789") {
			return nil, false // infinity and BC dates: PostgreSQL renders them
		}
		s := strings.Replace(text, " ", "T", 1)
		if oid == oidTimestamptz {
			// ISO output ends in ±hh[:mm[:ss]]; to_jsonb always writes ±hh:mm.
			i := strings.LastIndexAny(s, "+-")
			if i < 0 || i < strings.IndexByte(s, 'T') {
				return nil, false
			}
			if len(s)-i == 3 {
				s += ":00"
			}
		}
		return str(s)
	}
	return nil, false
}

// resolve converts the values quickJSON could not, in one query.
func (d *valueDecoder) resolve(ctx context.Context) error {
	if len(d.pending) == 0 {
		return nil
	}
	oids := make([]uint32, 0, len(d.pending))
	for oid := range d.pending {
		oids = append(oids, oid)
	}
	names, err := d.w.typeNames(ctx, oids)
	if err != nil {
		return err
	}
	var parts []string
	var args []any
	var lists [][]*jsonValue
	for _, oid := range oids {
		name, ok := names[oid]
		if !ok {
			continue
		}
		texts := make([]string, len(d.pending[oid]))
		for i, v := range d.pending[oid] {
			texts[i] = v.text
		}
		args = append(args, texts)
		lists = append(lists, d.pending[oid])
		// The type name comes from the catalog (regtype output is quoted as needed).
		parts = append(parts, fmt.Sprintf("select %d, i::int, to_jsonb(v::%s) from unnest($%d::text[]) with ordinality as u(v, i)", len(lists)-1, name, len(args)))
	}
	if len(parts) == 0 {
		return nil
	}
	rows, err := d.w.s.d.Owner.Query(ctx, strings.Join(parts, " union all "), args...)
	if err != nil {
		return fmt.Errorf("realtime: convert values: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var k, i int
		var raw []byte
		if err := rows.Scan(&k, &i, &raw); err != nil {
			return err
		}
		if k < len(lists) && i >= 1 && i <= len(lists[k]) {
			lists[k][i-1].raw = raw
		}
	}
	return rows.Err()
}

// typeNames returns the regtype text of type oids (cached: a type's name is stable enough
// for a cast, and an unknown oid is read again).
func (w *walReader) typeNames(ctx context.Context, oids []uint32) (map[uint32]string, error) {
	out := map[uint32]string{}
	var missing []uint32
	for _, oid := range oids {
		if n, ok := w.types.Load(oid); ok {
			out[oid] = n.(string)
		} else {
			missing = append(missing, oid)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	rows, err := w.s.d.Owner.Query(ctx, "select oid::int8, oid::regtype::text from pg_type where oid = any($1::oid[])", missing)
	if err != nil {
		return nil, fmt.Errorf("realtime: read types: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var oid int64
		var name string
		if err := rows.Scan(&oid, &name); err != nil {
			return nil, err
		}
		w.types.Store(uint32(oid), name)
		out[uint32(oid)] = name
	}
	return out, rows.Err()
}

// materialise is a decoded row as a record of JSON values (a value left unresolved, of a
// type PostgreSQL no longer knows, is dropped).
func materialise(vals map[string]*jsonValue) map[string]json.RawMessage {
	if vals == nil {
		return nil
	}
	out := make(map[string]json.RawMessage, len(vals))
	for name, v := range vals {
		if v.raw != nil {
			out[name] = v.raw
		}
	}
	return out
}

// messageFromRow reads a broadcast row of realtime.messages; rows without an event (the
// authorisation probes, which are rolled back anyway) and other extensions are skipped.
func messageFromRow(r walRow) (walMessage, bool) {
	if r.typ != "INSERT" || r.new == nil {
		return walMessage{}, false
	}
	vals := map[string]*pglogrepl.TupleDataColumn{}
	for i, col := range r.new.Columns {
		if i < len(r.rel.Columns) && col.DataType == pglogrepl.TupleDataTypeText {
			vals[r.rel.Columns[i].Name] = col
		}
	}
	text := func(name string) (string, bool) {
		c, ok := vals[name]
		if !ok {
			return "", false
		}
		return string(c.Data), true
	}
	ext, _ := text("extension")
	event, hasEvent := text("event")
	id, _ := text("id")
	topic, _ := text("topic")
	if ext != extBroadcast || !hasEvent || id == "" {
		return walMessage{}, false
	}
	m := walMessage{ID: id, Topic: topic, Event: event}
	if p, ok := text("private"); ok {
		m.Private = p == "t"
	}
	if p, ok := text("payload"); ok {
		m.Payload = []byte(p)
	}
	if b, ok := text("binary_payload"); ok {
		raw, err := hex.DecodeString(strings.TrimPrefix(b, `\x`))
		if err != nil {
			return walMessage{}, false
		}
		m.Binary, m.IsBin = raw, true
	}
	return m, true
}
