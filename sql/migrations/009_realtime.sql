-- Reserved for: realtime publication and change capture (issue 10). Kept so tern's numbering has no gaps.
select 1; -- placeholder statement until filled
