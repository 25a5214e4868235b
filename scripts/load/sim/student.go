package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// student is one simulated user; its requests are those the web app sends for the same
// steps (frontend/src/features/dashboard/api/cases.ts, components/Evaluation.tsx and
// TutorChat.tsx, features/progress/api, lib/auth/store.tsx).
type student struct {
	cfg   Config
	n     int
	http  *http.Client
	rec   *recorder
	rng   *rand.Rand
	unis  []string
	token string
	uid   string
	cases []treeCase
	words []string
	sock  *socket
	// the tutor conversation of the case open now
	convID string
	turns  []map[string]string
}

type treeCase struct {
	ID    string `json:"id"`
	Code  string `json:"case_code"`
	Title string `json:"title"`
}

// errStatus is a non-2xx answer.
type errStatus struct {
	status int
	body   string
}

func (e *errStatus) Error() string {
	b := e.body
	if len(b) > 160 {
		b = b[:160] + "…"
	}
	return fmt.Sprintf("HTTP %d: %s", e.status, b)
}

func (s *student) live(ctx context.Context, until time.Time) {
	a := s.account()
	if s.n < len(s.cfg.Accounts) {
		a = s.cfg.Accounts[s.n] // made by Prepare: a returning student only signs in
	} else if !s.signUp(ctx, a) {
		return
	}
	if !s.signIn(ctx, a) {
		return
	}
	if s.cfg.Realtime {
		s.sock = openSocket(ctx, s)
	}
	if !s.tree(ctx) || len(s.cases) == 0 {
		return
	}
	for cycle := 0; time.Now().Before(until) && ctx.Err() == nil; cycle++ {
		c := s.cases[s.rng.IntN(len(s.cases))]
		if hit := s.search(ctx); hit != nil && s.rng.IntN(2) == 0 {
			c = *hit
		}
		if !s.think(ctx, until) {
			return
		}
		s.openCase(ctx, c)
		if !s.think(ctx, until) {
			return
		}
		s.chat(ctx, c)
		if !s.think(ctx, until) {
			return
		}
		s.submit(ctx, c)
		if cycle%3 == 2 {
			if !s.think(ctx, until) {
				return
			}
			s.progress(ctx)
		}
		if !s.think(ctx, until) {
			return
		}
	}
}

// think pauses like a reader (uniform around the configured mean); false when the
// student's time is up.
func (s *student) think(ctx context.Context, until time.Time) bool {
	d := s.cfg.Think/2 + time.Duration(s.rng.Int64N(int64(s.cfg.Think)+1))
	if time.Now().Add(d).After(until) {
		return false
	}
	select {
	case <-time.After(d):
		return true
	case <-ctx.Done():
		return false
	}
}

// call sends one request, records it under kind and decodes a 2xx JSON answer into out.
func (s *student) call(ctx context.Context, kind, method, path string, body any, hdr map[string]string, out any) error {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.cfg.URL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("apikey", s.cfg.AnonKey)
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	} else {
		req.Header.Set("Authorization", "Bearer "+s.cfg.AnonKey)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	t0 := time.Now()
	status := 0
	res, err := s.http.Do(req)
	if err == nil {
		var b []byte
		b, err = io.ReadAll(res.Body)
		res.Body.Close()
		status = res.StatusCode
		if err == nil && res.StatusCode >= 300 {
			err = &errStatus{res.StatusCode, string(b)}
		}
		if err == nil && out != nil {
			if jerr := json.Unmarshal(b, out); jerr != nil {
				err = fmt.Errorf("undecodable answer: %w", jerr)
			}
		}
	}
	if ctx.Err() != nil && err != nil {
		return err // the run is ending: not the server's failure
	}
	e := Event{Kind: kind, At: t0, Dur: time.Since(t0), Status: status}
	if err != nil {
		e.Err = err.Error()
	}
	s.rec.add(e)
	return err
}

// anthropicError reports whether body is the Messages API's error object.
func anthropicError(body []byte) bool {
	var e struct {
		Type  string `json:"type"`
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	return json.Unmarshal(body, &e) == nil && e.Type == "error" && e.Error.Type != "" && e.Error.Message != ""
}

// fail records a failure the client detected in an answer that was itself a success.
func (s *student) fail(kind string, at time.Time, msg string) {
	s.rec.add(Event{Kind: kind, At: at, Dur: time.Since(at), Err: msg})
}

var (
	object = map[string]string{"Accept": "application/vnd.pgrst.object+json"}
	insert = map[string]string{"Accept": "application/vnd.pgrst.object+json", "Prefer": "return=representation"}
)

func universities(ctx context.Context, c *http.Client, cfg Config) ([]string, error) {
	s := &student{cfg: cfg, http: c, rec: &recorder{}}
	var rows []struct {
		Code string `json:"code"`
	}
	if err := s.call(ctx, "GET universities", "GET", "/rest/v1/universities?select=code,name,category&order=position", nil, nil, &rows); err != nil {
		return nil, err
	}
	var out []string
	for _, r := range rows {
		out = append(out, r.Code)
	}
	return out, nil
}

type session struct {
	AccessToken string `json:"access_token"`
	User        struct {
		ID string `json:"id"`
	} `json:"user"`
}

// signUp registers the student as the sign-up page does (account with its profile, then
// the spec's create_user_profile call, which returns that profile); false when it failed.
func (s *student) signUp(ctx context.Context, a Account) bool {
	username := fmt.Sprintf("load_%s_%d", s.cfg.Tag, s.n)
	meta := map[string]string{"name": fmt.Sprintf("Student %d", s.n), "username": username}
	if len(s.unis) > 0 {
		// As the sign-up page sends it: the study app's trigger on auth.users makes the
		// profile from this metadata in the same insert (and refuses a sign-up without it).
		meta["university_code"] = s.unis[s.n%len(s.unis)]
	}
	var su struct {
		session
		ID string `json:"id"` // the user, when no session is returned (confirmation pending)
	}
	if err := s.call(ctx, "POST auth signup", "POST", "/auth/v1/signup?redirect_to="+url.QueryEscape(s.cfg.URL+"/login"),
		map[string]any{"email": a.Email, "password": a.Password, "data": meta, "gotrue_meta_security": map[string]any{}}, nil, &su); err != nil {
		return false
	}
	uid := su.User.ID
	if su.AccessToken == "" {
		uid = su.ID
		if s.cfg.ServiceKey == "" {
			s.fail("POST auth signup", time.Now(), "sign-up returned no session: run the server with MAILER_AUTOCONFIRM=true or pass the service key")
			return false
		}
		svc := map[string]string{"apikey": s.cfg.ServiceKey, "Authorization": "Bearer " + s.cfg.ServiceKey}
		if err := s.call(ctx, "PUT auth admin confirm", "PUT", "/auth/v1/admin/users/"+uid, map[string]any{"email_confirm": true}, svc, nil); err != nil {
			return false
		}
	}
	s.token = su.AccessToken
	defer func() { s.token = "" }()
	if len(s.unis) > 0 {
		if s.token == "" {
			s.token = s.cfg.AnonKey
		}
		if err := s.call(ctx, "POST rpc create_user_profile", "POST", "/rest/v1/rpc/create_user_profile", map[string]any{
			"p_id": uid, "p_email": a.Email, "p_name": meta["name"], "p_username": username,
			"p_university_code": s.unis[s.n%len(s.unis)], "p_university_category": nil, "p_university_name": nil,
		}, nil, nil); err != nil {
			return false
		}
	}
	return true
}

// signIn signs in with the password as a returning student does, and reads the profile.
func (s *student) signIn(ctx context.Context, a Account) bool {
	s.token = ""
	var in session
	if err := s.call(ctx, KindSignIn, "POST", "/auth/v1/token?grant_type=password",
		map[string]any{"email": a.Email, "password": a.Password, "gotrue_meta_security": map[string]any{}}, nil, &in); err != nil {
		return false
	}
	s.token, s.uid = in.AccessToken, in.User.ID
	var prof []map[string]any
	if err := s.call(ctx, "GET profile", "GET", "/rest/v1/user_profiles?select=id,email,name,username,is_admin,role,university_code,university_category,university_name,created_at&id=eq."+s.uid,
		nil, nil, &prof); err == nil && len(s.unis) > 0 && len(prof) != 1 {
		s.fail("GET profile", time.Now(), "the profile just created is missing")
	}
	return true
}

// account is the student's e-mail and password, unique to the run's tag.
func (s *student) account() Account {
	return Account{Email: fmt.Sprintf("load-%s-%d@casus.test", s.cfg.Tag, s.n), Password: fmt.Sprintf("Parola-load-%s-%d", s.cfg.Tag, s.n)}
}

// tree loads the dashboard's three lists at once, like loadTree.
func (s *student) tree(ctx context.Context) bool {
	errs := make(chan error, 3)
	go func() {
		errs <- s.call(ctx, "GET tree domains", "GET", "/rest/v1/law_domains?select=code,name,position&order=position", nil, nil, nil)
	}()
	go func() {
		errs <- s.call(ctx, "GET tree categories", "GET", "/rest/v1/law_categories?select=id,domain,name,position,law_subcategories(name,position)&order=position&law_subcategories.order=position", nil, nil, nil)
	}()
	go func() {
		errs <- s.call(ctx, "GET tree cases", "GET", "/rest/v1/cases?select=id,case_code,title,level,week_number,verified,category,subcategory,domain,created_at&order=week_number,created_at", nil, nil, &s.cases)
	}()
	ok := true
	for i := 0; i < 3; i++ {
		ok = <-errs == nil && ok
	}
	for _, c := range s.cases {
		for _, w := range strings.Fields(c.Title) {
			if len([]rune(w)) >= 6 {
				s.words = append(s.words, strings.Trim(w, ",.:;()"))
			}
		}
	}
	return ok
}

// search types a word of some title (or a code prefix) into the search box.
func (s *student) search(ctx context.Context) *treeCase {
	q := "CIV"
	if len(s.words) > 0 && s.rng.IntN(4) > 0 {
		q = s.words[s.rng.IntN(len(s.words))]
	} else if len(s.cases) > 0 {
		code := s.cases[s.rng.IntN(len(s.cases))].Code
		q = code[:min(len(code), 4)]
	}
	var hits []treeCase
	if s.call(ctx, "POST rpc search_cases", "POST", "/rest/v1/rpc/search_cases", map[string]any{"search_query": q, "max_results": 10}, nil, &hits) != nil || len(hits) == 0 {
		return nil
	}
	return &hits[s.rng.IntN(len(hits))]
}

// openCase loads a case with its articles, steps and hints at once, like loadCase, and
// the tutor conversation, like the chat's backend.load.
func (s *student) openCase(ctx context.Context, c treeCase) {
	errs := make(chan error, 4)
	for _, q := range []struct{ kind, path string }{
		{"GET case", "/rest/v1/cases?select=*&id=eq." + c.ID},
		{"GET case articles", "/rest/v1/case_articles?select=article_number,article_reference&case_id=eq." + c.ID + "&order=article_number"},
		{"GET case steps", "/rest/v1/case_analysis_steps?select=step_number,step_description&case_id=eq." + c.ID + "&order=step_number"},
		{"GET case hints", "/rest/v1/case_hints?select=hint_number,hint_text&case_id=eq." + c.ID + "&order=hint_number"},
	} {
		go func(kind, path string) { errs <- s.call(ctx, kind, "GET", path, nil, nil, nil) }(q.kind, q.path)
	}
	for i := 0; i < 4; i++ {
		<-errs
	}
	s.convID, s.turns = "", nil
	var conv []struct {
		ID string `json:"id"`
	}
	if s.call(ctx, "GET chat conversation", "GET", "/rest/v1/chat_conversations?select=id,conversation_data&user_id=eq."+s.uid+"&case_id=eq."+c.ID+"&order=last_message_at.desc&limit=1", nil, nil, &conv) != nil {
		return
	}
	if len(conv) > 0 {
		s.convID = conv[0].ID
		return
	}
	var created struct {
		ID string `json:"id"`
	}
	if s.call(ctx, "POST chat conversation", "POST", "/rest/v1/chat_conversations?select=id",
		map[string]any{"user_id": s.uid, "case_id": c.ID, "conversation_data": []any{}, "message_count": 0}, insert, &created) == nil {
		s.convID = created.ID
	}
}

var questions = []string{
	"De unde încep analiza?", "Ce condiții trebuie îndeplinite?", "Care este norma aplicabilă?",
	"Cum calific fapta?", "Ce excepții ar putea exista?", "Este suficientă premisa minoră?",
}

// chat asks the tutor one question, streamed, then saves the conversation.
func (s *student) chat(ctx context.Context, c treeCase) {
	q := questions[s.rng.IntN(len(questions))]
	s.turns = append(s.turns, map[string]string{"role": "user", "content": q})
	answer, err := s.stream(ctx, c.ID)
	if err != nil {
		s.turns = s.turns[:len(s.turns)-1]
		return
	}
	s.turns = append(s.turns, map[string]string{"role": "assistant", "content": answer})
	if s.convID == "" {
		return
	}
	now := time.Now().UTC().Format(time.RFC3339Nano)
	stored := make([]map[string]string, 0, len(s.turns))
	for _, t := range s.turns {
		stored = append(stored, map[string]string{"role": t["role"], "content": t["content"], "timestamp": now})
	}
	_ = s.call(ctx, "PATCH chat conversation", "PATCH", "/rest/v1/chat_conversations?id=eq."+s.convID,
		map[string]any{"conversation_data": stored, "message_count": len(stored), "last_message_at": now}, nil, nil)
}

// ai builds a gateway request as the Anthropic SDK sends it.
func (s *student) ai(ctx context.Context, body any, hdr map[string]string) (*http.Request, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, "POST", s.cfg.URL+"/ai/v1/messages", bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return req, nil
}

// stream sends the tutor question and reads the server-sent events to the end; the time
// to the first text and the whole reply are recorded separately.
func (s *student) stream(ctx context.Context, caseID string) (string, error) {
	req, err := s.ai(ctx, map[string]any{"max_tokens": 1024, "temperature": 0.1, "stream": true, "messages": s.turns},
		map[string]string{"X-Casus-Task": "tutor", "X-Casus-Case": caseID, "Accept": "text/event-stream"})
	if err != nil {
		return "", err
	}
	t0 := time.Now()
	var text strings.Builder
	first := time.Duration(0)
	status, shapeless := 0, false
	err = func() error {
		res, err := s.http.Do(req)
		if err != nil {
			return err
		}
		defer res.Body.Close()
		status = res.StatusCode
		if res.StatusCode != 200 {
			b, _ := io.ReadAll(res.Body)
			shapeless = !anthropicError(b)
			return &errStatus{res.StatusCode, string(b)}
		}
		if !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
			// The closing message after four rounds comes as a stream too; anything else is wrong.
			return fmt.Errorf("not a stream: %s", res.Header.Get("Content-Type"))
		}
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		event, stopped := "", false
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = line[7:]
				stopped = stopped || event == "message_stop"
			case strings.HasPrefix(line, "data: ") && event == "error":
				shapeless = !anthropicError([]byte(line[6:]))
				return fmt.Errorf("error event: %s", line[6:])
			case strings.HasPrefix(line, "data: ") && event == "content_block_delta":
				var d struct {
					Delta struct {
						Text string `json:"text"`
					} `json:"delta"`
				}
				if json.Unmarshal([]byte(line[6:]), &d) == nil {
					if first == 0 {
						first = time.Since(t0)
					}
					text.WriteString(d.Delta.Text)
				}
			}
		}
		if err := sc.Err(); err != nil {
			shapeless = true
			return err
		}
		if !stopped {
			shapeless = true
			return errors.New("stream ended without message_stop")
		}
		return nil
	}()
	if err != nil && ctx.Err() != nil {
		return "", err
	}
	e := Event{Kind: "AI tutor (whole stream)", At: t0, Dur: time.Since(t0), Status: status, Shapeless: shapeless}
	if err != nil {
		e.Err = err.Error()
	} else if text.Len() == 0 {
		e.Err = "empty reply"
	}
	s.rec.add(e)
	if e.Err == "" {
		s.rec.add(Event{Kind: "AI tutor (first text)", At: t0, Dur: first})
		return text.String(), nil
	}
	return "", errors.New(e.Err)
}

// aiJSON is a non-streamed gateway call (the check and the grade); it returns the text.
func (s *student) aiJSON(ctx context.Context, task, subID string) (string, time.Time, error) {
	req, err := s.ai(ctx, map[string]any{"max_tokens": map[string]int{"detect": 1024, "grade": 4096}[task], "messages": []map[string]string{{"role": "user", "content": "-"}}},
		map[string]string{"X-Casus-Task": task, "X-Casus-Submission": subID})
	if err != nil {
		return "", time.Time{}, err
	}
	t0 := time.Now()
	var out struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	status, shapeless := 0, false
	res, err := s.http.Do(req)
	if err == nil {
		var b []byte
		b, err = io.ReadAll(res.Body)
		res.Body.Close()
		status = res.StatusCode
		if err == nil && res.StatusCode != 200 {
			shapeless = !anthropicError(b)
			err = &errStatus{res.StatusCode, string(b)}
		} else if err == nil && (json.Unmarshal(b, &out) != nil || len(out.Content) == 0) {
			shapeless = true
			err = fmt.Errorf("not a message: %.120s", b)
		}
	}
	if err != nil && ctx.Err() != nil {
		return "", t0, err
	}
	e := Event{Kind: "AI " + task, At: t0, Dur: time.Since(t0), Status: status, Shapeless: shapeless}
	if err != nil {
		e.Err = err.Error()
		s.rec.add(e)
		return "", t0, err
	}
	s.rec.add(e)
	return out.Content[0].Text, time.Now(), nil
}

// submit sends a solution through the evaluation panel's steps: insert, AI check, grade,
// read the recorded grade.
func (s *student) submit(ctx context.Context, c treeCase) {
	text := fmt.Sprintf("Introducere: în speța %s, fapta lui Ion se califică drept faptă ilicită cauzatoare de prejudiciu. "+
		"Premisa majoră: art. 1357 C.civ. cere fapta, prejudiciul, legătura de cauzalitate și vinovăția. "+
		"Premisa minoră: toate sunt prezente. Concluzie: Ion răspunde. (student %d, %d)", c.Code, s.n, s.rng.Int64())
	var sub struct {
		ID string `json:"id"`
	}
	if s.call(ctx, "POST case_submissions", "POST", "/rest/v1/case_submissions?select=id",
		map[string]any{"user_id": s.uid, "case_id": c.ID, "submission_text": text, "difficulty_rating": []int{1, 3, 5}[s.rng.IntN(3)], "status": "submitted"}, insert, &sub) != nil {
		return
	}
	s.rec.mu.Lock()
	s.rec.submissions++
	s.rec.mu.Unlock()
	if s.cfg.OnSubmission != nil {
		s.cfg.OnSubmission(sub.ID, text)
	}
	s.sock.expect(sub.ID, "insert")
	det, _, err := s.aiJSON(ctx, "detect", sub.ID)
	if err != nil {
		return
	}
	s.sock.expect(sub.ID, "checked")
	if !strings.Contains(det, "PASSED") {
		return
	}
	if _, _, err := s.aiJSON(ctx, "grade", sub.ID); err != nil {
		return
	}
	s.sock.expect(sub.ID, "graded")
	var graded struct {
		Score *string `json:"score"`
	}
	t0 := time.Now()
	if s.call(ctx, "GET graded submission", "GET", "/rest/v1/case_submissions?select=score,score_value,feedback_text,score_breakdown&id=eq."+sub.ID, nil, object, &graded) == nil && graded.Score == nil {
		s.fail("GET graded submission", t0, "the grade was answered but not recorded")
	}
}

// progress loads the progress page's three lists, as Reporting.tsx does.
func (s *student) progress(ctx context.Context) {
	errs := make(chan error, 3)
	for _, q := range []struct{ kind, path string }{
		{"GET progress submissions", "/rest/v1/submissions_with_details?select=id,case_code,case_title,score,score_value,feedback_text,submitted_at&user_id=eq." + s.uid + "&order=submitted_at.desc"},
		{"GET progress conversations", "/rest/v1/chat_conversations?select=id,case_id,conversation_data,message_count,last_message_at,cases(case_code,title)&user_id=eq." + s.uid + "&message_count=gt.0&order=last_message_at.desc"},
		{"GET progress cases", "/rest/v1/case_progress?select=case_id,case_code,case_title,status,completed_at&user_id=eq." + s.uid},
	} {
		go func(kind, path string) { errs <- s.call(ctx, kind, "GET", path, nil, nil, nil) }(q.kind, q.path)
	}
	for i := 0; i < 3; i++ {
		<-errs
	}
}

// KindSignIn names the password sign-in among the request kinds (its target may differ).
const KindSignIn = "POST auth token (sign-in)"
