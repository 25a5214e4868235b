-- Reserved for: row-level security (issue 4). Kept so tern's numbering has no gaps.
select 1; -- placeholder statement until filled
