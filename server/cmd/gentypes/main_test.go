package main

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"casus/server/internal/testutil/pgtest"
)

// TestGenerateFunctionRows checks that views and row-returning functions get real row types
// instead of Record<string, unknown>.
func TestGenerateFunctionRows(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.Empty(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `
		do $$ begin create role authenticated; exception when duplicate_object then null; end $$;
		create table public.pets (id int primary key, name text not null);
		create view public.pet_names as select id, name from public.pets;
		create type public.pair as (a int, b text);
		create type public.mood as enum ('vesel', 'trist');
		alter table public.pets add column mood public.mood, add column moods public.mood[] not null default '{}';
		create function public.zz_table(p int, q text default 'x') returns table(n int, label text) language sql as 'select 1, ''a''';
		create function public.zz_setof() returns setof public.pets language sql as 'select * from public.pets';
		create function public.zz_view() returns setof public.pet_names language sql as 'select * from public.pet_names';
		create function public.zz_pair() returns public.pair language sql as 'select 1, ''a''::text';`)
	if err != nil {
		t.Fatal(err)
	}
	src, err := generate(ctx, conn)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Enums: {\n      mood: \"vesel\" | \"trist\";\n    };",
		"CompositeTypes: {\n      pair: { a: number | null; b: string | null; };\n    };",
		"mood: Database['public']['Enums']['mood'] | null; moods: Database['public']['Enums']['mood'][];",
		"pet_names: {\n        Row: { id: number | null; name: string | null; };",
		"zz_table: {\n        Args: { p: number; q?: string; };\n        Returns: { n: number; label: string; }[];",
		"zz_setof: {\n        Args: { [_ in never]: never };\n        Returns: Database['public']['Tables']['pets']['Row'][];",
		"Returns: Database['public']['Views']['pet_names']['Row'][];",
		"zz_pair: {\n        Args: { [_ in never]: never };\n        Returns: { a: number; b: string; };",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("missing %q in:\n%s", want, src)
		}
	}
	if strings.Contains(src, "Record<string, unknown>") {
		t.Errorf("untyped row left:\n%s", src)
	}
}
