-- Reserved for: generated-case review queue (issue 9). Kept so tern's numbering has no gaps.
select 1; -- placeholder statement until filled
