-- Reserved for: AI gateway quotas and grading records (issue 7). Kept so tern's numbering has no gaps.
select 1; -- placeholder statement until filled
