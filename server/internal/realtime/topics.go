package realtime

import (
	"context"
	"regexp"
	"strings"
	"time"
)

// uuidPattern finds account ids named in a topic.
var uuidPattern = regexp.MustCompile(`(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// maxTopicIDs bounds the ids one topic may name (and one check may look up).
const maxTopicIDs = 8

// topicOpenTo reports whether subject may send broadcast and presence on a topic. A topic
// that names no account is open to everyone ("case:<case id>" names a case); one that
// names accounts belongs to them, so a sender must be among them. Only topics naming
// other ids cost a query, one indexed lookup; it fails closed.
func (s *Server) topicOpenTo(topic, subject string) bool {
	ids := uuidPattern.FindAllString(topic, maxTopicIDs+1)
	if len(ids) > maxTopicIDs {
		return false
	}
	var others []string
	for _, id := range ids {
		if subject != "" && strings.EqualFold(id, subject) {
			return true
		}
		others = append(others, strings.ToLower(id))
	}
	if len(others) == 0 {
		return true
	}
	ctx, cancel := context.WithTimeout(s.ctx, 5*time.Second)
	defer cancel()
	var owned bool
	if err := s.d.Owner.QueryRow(ctx, "select exists(select 1 from auth.users where id = any($1::uuid[]))", others).Scan(&owned); err != nil {
		s.d.Log.Warn("realtime: topic owner check failed", "err", err)
		return false
	}
	return !owned
}
