package host

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/internal/origin"
	"github.com/aios-host/aios-host/internal/ratelimit"

	"github.com/aios-host/aios-host/internal/wire"
)

// inferenceClient talks to an OpenAI-compatible chat-completions endpoint:
// POST {url}/v1/chat/completions.
type inferenceClient struct {
	url, model, keyEnv string
	// keyHeader is the header the key goes in ("" for Authorization:
	// Bearer), canonical.
	keyHeader string
	timeout   time.Duration
	http      *http.Client
	// lim is inference.rate (nil: none); slots holds a token per request
	// in flight (inference.max_concurrent).
	lim   *ratelimit.Limiter
	slots chan struct{}
	// closing is cancelled by the host's Close (stop): completions in
	// flight or waiting for a place end at once, new ones are refused.
	closing context.Context
	stop    context.CancelFunc
}

const defaultInferenceTimeout = 60 * time.Second

// maxInferenceBody bounds the response body read from the backend.
const maxInferenceBody = 8 << 20

func newInferenceClient(c config.Inference, hc *http.Client) *inferenceClient {
	if hc == nil {
		hc = &http.Client{}
	}
	// Redirects are followed only within inference.url's origin: Go's
	// client keeps the Authorization header on a redirect to the same host
	// name on another port or scheme (another service, or plain http), and
	// the key is the operator's, not the backend's to send on.
	own := *hc
	next := hc.CheckRedirect
	own.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if from := via[0].URL; !origin.Same(req.URL, from) { // (https://a and https://a:443 are one)
			return &refusedRedirect{to: req.URL.Redacted()}
		}
		if req.Method != via[0].Method {
			// A 301, 302 or 303 is followed as a GET without the body:
			// the backend answered that GET (405, a page, another
			// API's JSON), and the error quoted it as the completion's.
			status := 0
			if req.Response != nil {
				status = req.Response.StatusCode
			}
			return &refusedRedirect{to: req.URL.Redacted(), status: status}
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	hc = &own
	closing, stop := context.WithCancel(context.Background())
	return &inferenceClient{
		closing: closing, stop: stop,
		url:    strings.TrimRight(c.URL, "/"),
		model:  c.Model,
		keyEnv: c.APIKeyEnv,
		keyHeader: func() string {
			if strings.EqualFold(c.APIKeyHeader, "Authorization") {
				return ""
			}
			return http.CanonicalHeaderKey(c.APIKeyHeader)
		}(),
		timeout: orDefault(time.Duration(c.Timeout), defaultInferenceTimeout),
		http:    hc,
		lim:     newLimiter(c.Rate, "inference.rate"),
		slots:   make(chan struct{}, orDefault(c.MaxConcurrent, config.DefaultInferenceConcurrency)),
	}
}

// closingError is the error of a completion the host's Close stopped or
// refused.
func closingError() *abi.ToolError {
	return &abi.ToolError{Code: abi.Unavailable, Message: "the host is closing: its completions are stopped"}
}

// refusedRedirect is a backend's redirect not followed: out of
// inference.url's origin, or (status not 0) within it but one that would
// turn the POST into a GET (301, 302, 303).
type refusedRedirect struct {
	to     string
	status int
}

func (e *refusedRedirect) Error() string {
	if e.status != 0 {
		return "redirected (" + strconv.Itoa(e.status) + ") to " + e.to + ", which an HTTP client follows as a GET without the request; such redirects are not followed: set inference.url to the address that answers"
	}
	return "redirected to " + e.to + ", outside the origin (scheme, host and port) of inference.url; such redirects are not followed, so that the API key is sent nowhere else: set inference.url to the address that answers"
}

// maxInferenceMessage bounds the backend's error text quoted in an error.
const maxInferenceMessage = 512

// maxInferenceStatus bounds the backend's status line quoted in an error.
const maxInferenceStatus = 128

// clipText cuts s to at most n bytes without splitting a UTF-8 sequence,
// and replaces invalid ones (a backend's body may be anything).
func clipText(s string, n int) string {
	return strings.ToValidUTF8(wire.CutText(s, n, "…"), "\uFFFD")
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model,omitempty"`
	Messages    []chatMessage `json:"messages"`
	MaxTokens   int           `json:"max_tokens,omitempty"`
	Temperature *float64      `json:"temperature,omitempty"`
	Stop        []string      `json:"stop,omitempty"`
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			// Content is null when the model wrote none: a refusal, a
			// content filter, a tool call the host did not ask for.
			Content *chatContent `json:"content"`
			Refusal string       `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	// Error is {"message": ...} (OpenAI's) or a string (Ollama's, some
	// proxies'); errorMessage reads either.
	Error json.RawMessage `json:"error"`
}

// chatContent is a message's content: a string, or an array of parts
// ([{"type": "text", "text": …}, …]), as Mistral's reasoning models and
// proxies in front of other APIs send it, the text parts joined. Such an
// answer was refused as "is a JSON array, where chat-completions JSON has
// a string" (TestInferenceContentParts).
type chatContent struct {
	text string
	// none: an array without a text part (only a reasoning model's
	// "thinking", an image), no more a completion than a null content.
	none bool
}

func (c *chatContent) UnmarshalJSON(b []byte) error {
	switch b[0] {
	case '"':
		return json.Unmarshal(b, &c.text)
	case '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &parts); err != nil {
			return err
		}
		var text strings.Builder
		c.none = true
		for _, p := range parts {
			// Other parts are not the completion's text.
			if p.Type == "text" {
				text.WriteString(p.Text)
				c.none = false
			}
		}
		c.text = text.String()
		return nil
	}
	value := map[byte]string{'{': "object", 't': "bool", 'f': "bool"}[b[0]]
	if value == "" {
		value = "number"
	}
	return &json.UnmarshalTypeError{Value: value, Type: reflect.TypeFor[string]()}
}

// errorMessage is the backend's error text in r, "" when it sent none.
func (r *chatResponse) errorMessage() string {
	var obj struct {
		Message string `json:"message"`
	}
	var str string
	switch {
	case len(r.Error) == 0:
	case json.Unmarshal(r.Error, &obj) == nil:
		return obj.Message
	case json.Unmarshal(r.Error, &str) == nil:
		return str
	}
	return ""
}

// shapeError says what in a backend's answer is not chat-completions JSON,
// in JSON's terms: encoding/json's own message names the Go types the host
// decodes into ("Go struct field chatResponse.choices of type []struct {
// Message struct {…"), which say nothing to whoever runs the backend.
func shapeError(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	want := func(t reflect.Type) string {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Slice, reflect.Array:
			return "an array"
		case reflect.Struct, reflect.Map:
			return "an object"
		case reflect.String:
			return "a string"
		case reflect.Bool:
			return "true or false"
		case reflect.Interface:
			return "any value"
		}
		return "a number"
	}(te.Type)
	if te.Field == "" {
		return "the answer is a JSON " + te.Value + ", not an object"
	}
	return "its " + strconv.Quote(te.Field) + " is a JSON " + te.Value + ", where chat-completions JSON has " + want
}

func (c *inferenceClient) complete(ctx context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	if c.url == "" {
		// "in the config file" told a host run without one (the README's
		// tour) nothing of how to give it (TestInferenceNotConfiguredSaysWhere).
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable,
			Message: "inference is not configured: set inference.url (the base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8080), inference.model and, if the server needs a key, inference.api_key_env (the name of the environment variable holding it) in the configuration file the host is given with --config (config/example.yaml lists the keys)"}
	}
	var key string
	if c.keyEnv != "" {
		// White space around the key (the newline of a secret file read
		// whole, an env file's CR) is not part of it; a control character
		// inside cannot be sent in a header, and Go's client said only
		// 'invalid header field value for "Authorization"'.
		key = strings.TrimSpace(os.Getenv(c.keyEnv))
		if strings.IndexFunc(key, func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }) >= 0 {
			return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable,
				Message: "the value of $" + c.keyEnv + " (inference.api_key_env) holds a control character, which an API key sent in an HTTP header cannot: check how the variable is set"}
		}
	}
	if perr := ctx.Err(); perr != nil {
		// The call has ended (a tool finishing up after its cancel, or
		// ignoring it): nothing would be sent, and a token of
		// inference.rate, which all tools share, would be spent for it.
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.AsToolError(perr, abi.Cancelled).Code,
			Message: "inference: not asked, the call has ended (" + perr.Error() + ")"}
	}
	if c.closing.Err() != nil {
		return abi.CompleteResponse{}, closingError()
	}
	asked := time.Now()
	if c.lim != nil {
		if ok, retry := c.lim.Allow(asked); !ok {
			return abi.CompleteResponse{}, rateError(retry, "inference (all tools' completions together)", c.lim)
		}
	}
	select {
	case c.slots <- struct{}{}:
	default:
		select {
		case c.slots <- struct{}{}:
		case <-c.closing.Done():
			if c.lim != nil {
				c.lim.RefundLate(asked, time.Now())
			}
			return abi.CompleteResponse{}, closingError()
		case <-ctx.Done():
			// Never sent: the request gives back its token of
			// inference.rate, which bounds what reaches the backend —
			// unless it waited past one interval of the rate, when the
			// bucket may have refilled and been drawn on since, and the
			// token would be one more than the rate lets through
			// (ratelimit.RefundLate; found by p141).
			if c.lim != nil {
				c.lim.RefundLate(asked, time.Now())
			}
			code, until := abi.Timeout, "the call's deadline"
			if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				code, until = abi.Cancelled, "the call was cancelled"
			}
			return abi.CompleteResponse{}, &abi.ToolError{Code: code, Message: "inference: all " + strconv.Itoa(cap(c.slots)) +
				" requests to the backend allowed at once (inference.max_concurrent) were in flight until " + until}
		}
	}
	defer func() { <-c.slots }()
	resp, err := c.ask(ctx, req, key)
	if err != nil && key != "" {
		// A backend may quote the request's Authorization header in its
		// error (a proxy echoing headers): the key must not reach the
		// tool, its caller or the audit log.
		if te, ok := err.(*abi.ToolError); ok {
			te.Message = c.redact(te.Message, key)
		}
	}
	return resp, err
}

// redact replaces the API key in s (a backend's text, or a message quoting
// it) with the name of its variable.
func (c *inferenceClient) redact(s, key string) string {
	if key == "" || !strings.Contains(s, key) {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted: $"+c.keyEnv+"]")
}

func (c *inferenceClient) ask(parent context.Context, req abi.CompleteRequest, key string) (abi.CompleteResponse, error) {
	body := chatRequest{Model: req.Model, MaxTokens: req.MaxTokens, Temperature: req.Temperature, Stop: req.Stop}
	if body.Model == "" {
		body.Model = c.model
	}
	if req.System != "" {
		body.Messages = append(body.Messages, chatMessage{Role: "system", Content: req.System})
	}
	body.Messages = append(body.Messages, chatMessage{Role: "user", Content: req.Prompt})
	data, err := json.Marshal(body)
	if err != nil {
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.InvalidParams, Message: "inference request: " + err.Error()}
	}
	ctx, cancel := context.WithTimeout(parent, c.timeout)
	defer cancel()
	defer context.AfterFunc(c.closing, cancel)() // the host's Close stops it
	endpoint := chatEndpoint(c.url)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(data))
	if err != nil {
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable, Message: "inference.url: " + err.Error()}
	}
	if u, err := url.Parse(endpoint); err == nil {
		endpoint = u.Redacted() // for messages
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if key != "" {
		if c.keyHeader != "" {
			hreq.Header.Set(c.keyHeader, key) // inference.api_key_header
		} else {
			hreq.Header.Set("Authorization", "Bearer "+key)
		}
	}
	// waitErr is the error of a request stopped by a context: the call's
	// own (its deadline, a cancel) or inference.timeout's.
	waitErr := func(what string) *abi.ToolError {
		if c.closing.Err() != nil && parent.Err() == nil {
			te := closingError()
			te.Message = "inference backend " + endpoint + ": " + what + ": " + te.Message
			return te
		}
		if perr := parent.Err(); perr != nil {
			te := abi.AsToolError(perr, abi.Cancelled)
			return &abi.ToolError{Code: te.Code, Message: "inference backend " + endpoint + ": " + what + ": the call ended (" + perr.Error() + ")"}
		}
		return &abi.ToolError{Code: abi.Timeout, Message: "inference backend " + endpoint + ": " + what + " within inference.timeout (" + c.timeout.String() + ")",
			Data: map[string]any{"timeout_ms": c.timeout.Milliseconds()}}
	}
	// clip cuts a backend's text for a message, the key taken out first:
	// Complete's redaction looks for the whole key, and a cut through it
	// would leave its first part.
	clip := func(s string, n int) string {
		return clipText(c.redact(s, key), n)
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		var off *refusedRedirect
		if errors.As(err, &off) {
			// Where it pointed is the backend's Location header, of any
			// length, and may quote the key.
			shown := *off
			shown.to = clip(off.to, maxInferenceStatus)
			return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable, Message: "inference backend " + endpoint + ": " + shown.Error()}
		}
		if ctx.Err() != nil {
			return abi.CompleteResponse{}, waitErr("no answer")
		}
		// The client's error quotes what the backend sent instead of a
		// status line ("malformed HTTP response \"…\""), whole.
		msg := "inference backend " + endpoint + ": " + clip(err.Error(), maxInferenceMessage)
		if cv := (*tls.CertificateVerificationError)(nil); errors.As(err, &cv) {
			// Go's "x509: certificate signed by unknown authority" says
			// neither which setting nor how to trust a private CA.
			msg += "; the host checks the backend's certificate against the system's certificate authorities: for one a private authority signed, set SSL_CERT_FILE (a PEM file) or SSL_CERT_DIR in the host's environment to that authority's certificate, or set inference.url to a name the certificate holds"
		}
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable, Message: msg}
	}
	defer resp.Body.Close()
	// The status line's reason phrase is the backend's text too, of any
	// length (up to the client's 10 MiB of headers).
	status := clip(resp.Status, maxInferenceStatus)
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxInferenceBody+1))
	if err != nil {
		// The status came whole: a 503 whose body stalls or breaks off is
		// a 503, which the error says.
		if ctx.Err() != nil {
			return abi.CompleteResponse{}, waitErr("answered " + status + ", but the answer did not arrive whole")
		}
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable, Message: "inference backend " + endpoint + " answered " + status + ", but reading the answer failed: " + clip(err.Error(), maxInferenceMessage),
			Data: map[string]any{"status": int64(resp.StatusCode)}}
	}
	if len(raw) > maxInferenceBody && resp.StatusCode/100 == 2 { // a failure's status says more; its text is cut below
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.TooLarge, Message: "inference backend " + endpoint + " answered " + status + " with more than " +
			strconv.Itoa(maxInferenceBody>>20) + " MiB, the most the host reads; ask for fewer tokens (max_tokens)", Data: map[string]any{"limit": int64(maxInferenceBody), "status": int64(resp.StatusCode)}}
	}
	raw = raw[:min(len(raw), maxInferenceBody)]
	// A byte order mark before the JSON (some Windows and .NET servers and
	// proxies write one) is not part of it (RFC 8259 8.1 lets a parser
	// ignore it); the answer was refused as "not JSON at all".
	raw = bytes.TrimPrefix(raw, []byte("\uFEFF"))
	var out chatResponse
	jerr := json.Unmarshal(raw, &out)
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(raw))
		if m := out.errorMessage(); jerr == nil && m != "" {
			msg = m
		}
		code := abi.Unavailable
		switch resp.StatusCode {
		case http.StatusBadRequest:
			code = abi.InvalidParams
		case http.StatusTooManyRequests:
			// The backend's rate limit or quota: the caller's to slow
			// down (with data.retry_after_ms when it said when), not a
			// backend that is down (TestInferenceBackend429RateLimited).
			code = abi.RateLimited
		}
		msg = "inference backend " + endpoint + " answered " + status + ": " + clip(msg, maxInferenceMessage)
		if key == "" && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
			// The backend's "Unauthorized" does not say that the host
			// sent no key, nor where the host takes one from.
			if c.keyEnv == "" {
				msg += "; no API key was sent: set inference.api_key_env to the name of the environment variable holding it"
			} else {
				msg += "; no API key was sent: $" + c.keyEnv + " (inference.api_key_env) is not set or empty in the host's environment"
			}
		}
		if body.Model == "" && (resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusUnprocessableEntity) {
			// "you must provide a model parameter": the host's to send,
			// as neither inference.model nor the tool named one.
			msg += "; no model was sent: set inference.model to the backend's name of the model in the config"
		}
		data := map[string]any{"status": int64(resp.StatusCode)}
		if ms, ok := retryAfter(resp.Header.Get("Retry-After"), time.Now()); ok {
			// A 429's or a 503's when to try again: the caller's to know.
			data["retry_after_ms"] = ms
			msg += " (Retry-After: " + (time.Duration(ms) * time.Millisecond).String() + ")"
		}
		return abi.CompleteResponse{}, &abi.ToolError{Code: code, Message: msg, Data: data}
	}
	if jerr != nil {
		// What came instead: the decoder's "invalid character '<' looking
		// for beginning of value" does not say it was a proxy's HTML page.
		why := shapeError(jerr)
		var syn *json.SyntaxError
		switch body := bytes.TrimSpace(raw); {
		case len(body) == 0:
			why = "the body is empty (" + status + ")"
		case errors.As(jerr, &syn) && syn.Offset <= 1:
			why = "it is not JSON at all; it begins " + strconv.Quote(clip(string(body), 64))
			if ct := resp.Header.Get("Content-Type"); ct != "" {
				why += " (Content-Type " + strconv.Quote(clip(ct, 64)) + ")"
			}
			why += "; is inference.url the API's address?"
		}
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable, Message: "inference backend " + endpoint + " sent an answer that is not chat-completions JSON: " + why}
	}
	if len(out.Choices) == 0 {
		msg := "inference backend " + endpoint + " sent no choices"
		if m := out.errorMessage(); m != "" {
			msg += "; its error: " + clip(m, maxInferenceMessage)
		}
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable, Message: msg}
	}
	ch := out.Choices[0]
	// The finish reason goes into the errors' data (and so the audit log)
	// clipped and with the key taken out, as their messages' text is: it
	// went there whole, megabytes and the key as the backend sent them.
	ch.FinishReason = clip(ch.FinishReason, 64)
	if ch.Message.Refusal != "" {
		// An answer, not a broken backend: the model declined. Returned
		// as text it would read as an empty completion.
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.ProviderError,
			Message: "inference backend " + endpoint + ": the model refused: " + clip(ch.Message.Refusal, maxInferenceMessage),
			Data:    map[string]any{"refusal": clip(ch.Message.Refusal, maxInferenceMessage), "finish_reason": ch.FinishReason}}
	}
	if ch.Message.Content == nil || ch.Message.Content.none {
		msg := "inference backend " + endpoint + " sent a choice without content"
		if ch.FinishReason != "" {
			msg += " (finish_reason " + strconv.Quote(ch.FinishReason) + ")"
		}
		code := abi.Unavailable
		switch ch.FinishReason {
		case "content_filter":
			code, msg = abi.ProviderError, msg+": the backend's content filter withheld the answer"
		case "length":
			// A reasoning model (vLLM's, DeepSeek's) spent the tokens
			// thinking: "Unavailable" told the caller to try again later,
			// which gets the same answer.
			limit := "the backend's default max_tokens"
			if req.MaxTokens > 0 {
				limit = "max_tokens (" + strconv.Itoa(req.MaxTokens) + ")"
			}
			code, msg = abi.ProviderError, msg+": the answer was cut at "+limit+" before any text (a reasoning model may spend them all thinking); ask for more tokens"
		}
		return abi.CompleteResponse{}, &abi.ToolError{Code: code, Message: msg, Data: map[string]any{"finish_reason": ch.FinishReason}}
	}
	return abi.CompleteResponse{Text: ch.Message.Content.text, Model: out.Model, FinishReason: ch.FinishReason}, nil
}

// maxRetryAfter bounds a backend's Retry-After taken into an error.
const maxRetryAfter = 24 * time.Hour

// retryAfter reads a Retry-After header (delay-seconds or an HTTP date,
// RFC 9110 10.2.3) as milliseconds from now, at most a day; ok is false
// for none or one that does not parse.
func retryAfter(v string, now time.Time) (ms int64, ok bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	var d time.Duration
	if n, err := strconv.ParseUint(v, 10, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		d = maxRetryAfter
		if err == nil && n < uint64(maxRetryAfter/time.Second) {
			d = time.Duration(n) * time.Second
		}
	} else if at, err := http.ParseTime(v); err == nil {
		d = min(max(at.Sub(now), 0), maxRetryAfter)
	} else {
		return 0, false
	}
	return d.Milliseconds(), true
}

// chatEndpoint is the chat completions URL of the OpenAI-compatible API at
// base: base/v1/chat/completions, or base/chat/completions when base
// already ends in /v1 (as OpenAI's and Ollama's base URLs are given).
func chatEndpoint(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		u = &url.URL{Path: base} // NewRequest says what is wrong with it
	}
	// The path gets the API's; a query (Azure's api-version) stays a
	// query, and a final slash does not double. A url that names the
	// endpoint itself (Azure's deployment URLs end in /chat/completions)
	// is taken as it is.
	p := strings.TrimSuffix(u.Path, "/")
	if strings.HasSuffix(strings.ToLower(p), "/chat/completions") {
		u.Path = p
	} else if strings.HasSuffix(p, "/v1") {
		u.Path = p + "/chat/completions"
	} else {
		u.Path = p + "/v1/chat/completions"
	}
	u.RawPath = ""
	if err != nil {
		return u.Path
	}
	return u.String()
}
