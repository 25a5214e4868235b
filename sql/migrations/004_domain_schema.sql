-- Reserved for: domain tables (issue 4). Kept so tern's numbering has no gaps.
select 1; -- placeholder statement until filled
