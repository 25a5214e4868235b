-- Reserved for: auth service extras (issue 2). Kept so tern's numbering has no gaps.
select 1; -- placeholder statement until filled
