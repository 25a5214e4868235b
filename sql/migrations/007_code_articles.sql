-- Reserved for: legal code articles (issue 5). Kept so tern's numbering has no gaps.
select 1; -- placeholder statement until filled
