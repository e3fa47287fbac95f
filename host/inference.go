package host

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
)

// inferenceClient talks to an OpenAI-compatible chat-completions endpoint:
// POST {url}/v1/chat/completions.
type inferenceClient struct {
	url, model, keyEnv string
	timeout            time.Duration
	http               *http.Client
}

const defaultInferenceTimeout = 60 * time.Second

// maxInferenceBody bounds the response body read from the backend.
const maxInferenceBody = 8 << 20

func newInferenceClient(c config.Inference, hc *http.Client) *inferenceClient {
	if hc == nil {
		hc = &http.Client{}
	}
	return &inferenceClient{
		url:     strings.TrimRight(c.URL, "/"),
		model:   c.Model,
		keyEnv:  c.APIKeyEnv,
		timeout: orDefault(time.Duration(c.Timeout), defaultInferenceTimeout),
		http:    hc,
	}
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
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (c *inferenceClient) complete(ctx context.Context, req abi.CompleteRequest) (abi.CompleteResponse, error) {
	if c.url == "" {
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable,
			Message: "inference is not configured: set inference.url (the base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8080), inference.model and, if the server needs a key, inference.api_key_env (the name of the environment variable holding it) in the config file"}
	}
	body := chatRequest{Model: req.Model, MaxTokens: req.MaxTokens, Temperature: req.Temperature}
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
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	endpoint := chatEndpoint(c.url)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(data))
	if err != nil {
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable, Message: "inference.url " + strconv.Quote(c.url) + ": " + err.Error()}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	if c.keyEnv != "" {
		if key := os.Getenv(c.keyEnv); key != "" {
			hreq.Header.Set("Authorization", "Bearer "+key)
		}
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return abi.CompleteResponse{}, abi.AsToolError(ctx.Err(), abi.Unavailable)
		}
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable, Message: "inference backend " + endpoint + ": " + err.Error()}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxInferenceBody))
	if err != nil {
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable, Message: "inference backend " + endpoint + ": reading the answer: " + err.Error()}
	}
	var out chatResponse
	jerr := json.Unmarshal(raw, &out)
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(raw))
		if jerr == nil && out.Error != nil && out.Error.Message != "" {
			msg = out.Error.Message
		}
		if len(msg) > 512 {
			msg = msg[:512] + "…"
		}
		code := abi.Unavailable
		if resp.StatusCode == http.StatusBadRequest {
			code = abi.InvalidParams
		}
		return abi.CompleteResponse{}, &abi.ToolError{Code: code, Message: "inference backend " + endpoint + " answered " + resp.Status + ": " + msg,
			Data: map[string]any{"status": int64(resp.StatusCode)}}
	}
	if jerr != nil {
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable, Message: "inference backend " + endpoint + " sent an answer that is not chat-completions JSON: " + jerr.Error()}
	}
	if len(out.Choices) == 0 {
		return abi.CompleteResponse{}, &abi.ToolError{Code: abi.Unavailable, Message: "inference backend " + endpoint + " sent no choices"}
	}
	return abi.CompleteResponse{Text: out.Choices[0].Message.Content, Model: out.Model}, nil
}

// chatEndpoint is the chat completions URL of the OpenAI-compatible API at
// base: base/v1/chat/completions, or base/chat/completions when base
// already ends in /v1 (as OpenAI's and Ollama's base URLs are given).
func chatEndpoint(base string) string {
	if strings.HasSuffix(base, "/v1") {
		return base + "/chat/completions"
	}
	return base + "/v1/chat/completions"
}
