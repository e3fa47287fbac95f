package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/aios-host/aios-host/abi"
)

// server is the connection to one MCP server: a goroutine (run) connects,
// lists, publishes, then waits for the session to end or a list-changed
// notification; when the session ends it reconnects with backoff.
type server struct {
	b          *Bridge
	name       string
	cfg        ServerConfig
	source     string
	host       string // endpoint host of a URL server, "" for stdio
	httpClient *http.Client
	prov       *provider
	failed     error // the host refused the server's provider at Start

	ctx    context.Context // cancelled by stop
	cancel context.CancelFunc

	ready     chan struct{} // closed after the first attempt
	readyOnce sync.Once
	refresh   chan struct{} // list-changed notifications, coalesced
	kick      chan struct{} // retry now instead of after the backoff

	mu      sync.Mutex
	sess    *mcpsdk.ClientSession
	lastErr error
	// restarting: the session dropped after it had been up, and the first
	// reconnect attempt has not failed yet; calls wait for it (restartWait)
	// instead of answering Unavailable. changed is closed (and replaced)
	// whenever sess or restarting changes.
	restarting bool
	changed    chan struct{}

	listMu sync.Mutex // serializes relists (run loop and Refresh)
}

func newServer(b *Bridge, name string, sc ServerConfig, hc *http.Client) *server {
	ctx, cancel := context.WithCancel(b.ctx)
	s := &server{b: b, name: name, cfg: sc, httpClient: hc, ctx: ctx, cancel: cancel,
		ready: make(chan struct{}), refresh: make(chan struct{}, 1), kick: make(chan struct{}, 1)}
	if sc.URL != "" {
		s.source = sc.URL
		s.host = sc.endpointHost()
	} else {
		s.source = strings.TrimSpace(sc.Command + " " + strings.Join(sc.Args, " "))
	}
	s.prov = &provider{srv: s}
	s.prov.table.Store(s.emptyTable())
	return s
}

func (s *server) session() *mcpsdk.ClientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess
}

func (s *server) lastError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

func (s *server) setSession(sess *mcpsdk.ClientSession, err error) {
	s.setState(sess, err, false)
}

// setState records the connection state and wakes calls waiting for a
// restart.
func (s *server) setState(sess *mcpsdk.ClientSession, err error, restarting bool) {
	s.mu.Lock()
	s.setStateLocked(sess, err, restarting)
	s.mu.Unlock()
}

func (s *server) setStateLocked(sess *mcpsdk.ClientSession, err error, restarting bool) {
	s.sess, s.lastErr, s.restarting = sess, err, restarting
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// dropped forgets sess when a call found its connection closed, before the
// run loop notices: later calls wait for the restart instead of being sent
// on the dead session.
// It also closes sess, so that the run loop reconnects even if the
// session lingers.
func (s *server) dropped(sess *mcpsdk.ClientSession) {
	if sess == nil {
		return
	}
	s.mu.Lock()
	if s.sess == sess {
		s.setStateLocked(nil, errors.New("the connection closed during a call"), s.ctx.Err() == nil)
	}
	s.mu.Unlock()
	_ = sess.Close()
}

// restartWait bounds how long a call waits for a dropped server to come
// back (see awaitRestart).
const restartWait = 5 * time.Second

// awaitRestart waits, when the server's session dropped after it had been
// up and the bridge is reconnecting for the first time, until the new
// session is up, that attempt fails, ctx ends or restartWait passes; it
// returns the session then (nil if none). A server that is down for good —
// its last reconnect attempt failed — is not waited for: its calls answer
// Unavailable at once.
func (s *server) awaitRestart(ctx context.Context) *mcpsdk.ClientSession {
	t := time.NewTimer(restartWait)
	defer t.Stop()
	for {
		s.mu.Lock()
		if s.sess != nil || !s.restarting || s.ctx.Err() != nil {
			sess := s.sess
			s.mu.Unlock()
			return sess
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		ch := s.changed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil
		case <-s.ctx.Done():
			return nil
		case <-t.C:
			return nil
		}
	}
}

func (s *server) markReady() { s.readyOnce.Do(func() { close(s.ready) }) }

func (s *server) stop() {
	s.cancel()
	if sess := s.session(); sess != nil {
		_ = sess.Close()
	}
}

func (s *server) kickReconnect() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

func (s *server) onListChanged() {
	select {
	case s.refresh <- struct{}{}:
	default:
	}
}

// run is the server's connection loop; it returns when the bridge closes.
func (s *server) run() {
	defer s.markReady()
	backoff := DefaultReconnectMin
	for s.ctx.Err() == nil {
		began := time.Now()
		connected, err := s.serve()
		// A session that was up and dropped (a stdio server that crashed,
		// say) is restarted at once, and calls meanwhile wait for it; a
		// failed attempt wakes them to answer Unavailable.
		restart := connected && s.ctx.Err() == nil
		s.setState(nil, err, restart)
		s.markReady()
		if s.ctx.Err() != nil {
			return
		}
		if restart {
			s.b.log.Warn("mcp server connection lost; restarting", "server", s.name, "err", err)
			backoff = DefaultReconnectMin
			continue
		}
		if time.Since(began) > 10*backoff {
			backoff = DefaultReconnectMin // it ran a while: a fresh failure
		}
		s.b.log.Warn("mcp server unavailable; reconnecting", "server", s.name, "in", backoff, "err", err)
		t := time.NewTimer(backoff)
		select {
		case <-t.C:
		case <-s.kick:
			t.Stop()
		case <-s.ctx.Done():
			t.Stop()
			return
		}
		backoff = min(backoff*2, s.cfg.ReconnectMax)
	}
}

// serve connects, lists and publishes, then waits for the session to end.
// connected reports that the session was up (connected and listed).
func (s *server) serve() (connected bool, err error) {
	cctx, cancel := context.WithTimeout(s.ctx, s.cfg.ConnectTimeout)
	defer cancel()
	tr, err := s.transport()
	if err != nil {
		return false, err
	}
	client := mcpsdk.NewClient(&mcpsdk.Implementation{Name: "aios-host", Version: Version}, &mcpsdk.ClientOptions{
		Capabilities:               &mcpsdk.ClientCapabilities{},
		ToolListChangedHandler:     func(context.Context, *mcpsdk.ToolListChangedRequest) { s.onListChanged() },
		ResourceListChangedHandler: func(context.Context, *mcpsdk.ResourceListChangedRequest) { s.onListChanged() },
	})
	sess, err := client.Connect(cctx, tr, nil)
	if err != nil {
		return false, fmt.Errorf("connect to %s: %w", s.source, err)
	}
	s.setSession(sess, nil)
	if err := s.relist(cctx, sess); err != nil {
		_ = sess.Close()
		return false, err
	}
	s.markReady()
	s.b.log.Info("mcp server connected", "server", s.name, "source", s.source,
		"tools", len(s.prov.table.Load().reg.Tools))
	done := make(chan error, 1)
	go func() { done <- sess.Wait() }()
	for {
		select {
		case err := <-done:
			if err == nil {
				err = errors.New("the server closed the connection")
			}
			return true, err
		case <-s.refresh:
			rctx, cancel := context.WithTimeout(s.ctx, s.cfg.ConnectTimeout)
			if err := s.relist(rctx, sess); err != nil && s.ctx.Err() == nil {
				s.b.log.Warn("mcp server re-list failed", "server", s.name, "err", err)
			}
			cancel()
		case <-s.ctx.Done():
			_ = sess.Close()
			<-done
			return true, s.ctx.Err()
		}
	}
}

// relist lists the server's tools (and resources), converts them, skipping
// with a logged reason what cannot be registered, and publishes the
// provider when its tool set changed.
func (s *server) relist(ctx context.Context, sess *mcpsdk.ClientSession) error {
	s.listMu.Lock()
	defer s.listMu.Unlock()
	t := s.emptyTable()
	if ir := sess.InitializeResult(); ir != nil && ir.ServerInfo != nil {
		t.reg.Provider.Version = ir.ServerInfo.Version
		if ir.ServerInfo.Title != "" {
			t.reg.Provider.Description = "MCP server " + s.name + ": " + ir.ServerInfo.Title
		}
	}
	for tool, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		def, err := importTool(s.name, tool, s.host)
		if err != nil {
			s.b.log.Warn("mcp tool skipped", "server", s.name, "reason", err)
			continue
		}
		for _, c := range s.cfg.requiredFor(tool.Name) {
			if !slices.Contains(def.CapabilityRequired, c) {
				def.CapabilityRequired = append(def.CapabilityRequired, c)
			}
		}
		if !t.add(def, target{tool: tool.Name, structured: def.Returns != nil}) {
			s.b.log.Warn("mcp tool skipped", "server", s.name, "reason", fmt.Sprintf("tool %q: duplicate name %s", tool.Name, def.Name))
		}
	}
	if ir := sess.InitializeResult(); s.cfg.importResources() && ir != nil && ir.Capabilities != nil && ir.Capabilities.Resources != nil {
		n := 0
		for res, err := range sess.Resources(ctx, nil) {
			if err != nil {
				s.b.log.Warn("mcp resources not imported", "server", s.name, "reason", fmt.Sprintf("resources/list: %v", err))
				break
			}
			if n >= s.cfg.MaxResources {
				s.b.log.Info("mcp resources past max_resources not imported", "server", s.name, "max_resources", s.cfg.MaxResources)
				break
			}
			def, err := importResource(s.name, res, s.host)
			if err != nil {
				s.b.log.Warn("mcp resource skipped", "server", s.name, "reason", err)
				continue
			}
			if !t.add(def, target{uri: res.URI}) {
				s.b.log.Warn("mcp resource skipped", "server", s.name, "reason", fmt.Sprintf("resource %q: duplicate name %s", res.URI, def.Name))
				continue
			}
			n++
		}
	}
	old := s.prov.table.Load()
	if old.published && reflect.DeepEqual(old.reg, t.reg) {
		return nil
	}
	t.published = true
	s.prov.table.Store(t)
	if err := s.b.publish(ctx, s.prov, s.source); err != nil {
		// Keep serving the tools of the table the registry still holds.
		t.published = false
		s.prov.table.Store(old)
		return fmt.Errorf("publish %d tools: %w", len(t.reg.Tools), err)
	}
	return nil
}

// emptyTable is the server's registration with no tools.
func (s *server) emptyTable() *table {
	info := abi.ProviderInfo{
		ID:          ProviderID(s.name),
		Name:        "MCP server " + s.name,
		Runtime:     abi.RuntimeMCP,
		Description: "Tools of the MCP server " + s.name + " (" + s.source + "), imported by the MCP bridge",
	}
	if s.host != "" {
		info.Capabilities = []string{abi.CapNetwork + "(" + s.host + ")"}
	}
	return &table{reg: &abi.ToolRegister{Format: abi.FormatVersion, Provider: info, Tools: []abi.ToolDef{}},
		targets: map[string]target{}}
}
