package server

import (
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/config"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/host"
)

// Metrics are the Prometheus metrics served at /metrics. Each Metrics has
// its own registry (no global state).
//
//	aios_tool_calls_total{tool,runtime,code}          every call through the host's pipeline — API, CLI,
//	                                                  MCP and nested calls (code "OK" on success)
//	aios_tool_calls_nested_total{runtime}             the nested ones (a tool calling a tool)
//	aios_tool_call_errors_total{code}                 failed calls by abi error code
//	aios_tool_call_duration_seconds{tool,runtime}     latency histogram
//	aios_provider_pool{provider,runtime,state}        idle / busy workers of providers that implement
//	                                                  host.PoolStats (read at scrape)
//	aios_rpc_requests_total{transport,method}         JSON-RPC requests
//	aios_providers{runtime}, aios_tools               registry sizes (read at scrape)
//	aios_subscribers                                  live tools_changed subscriptions
//	aios_reloads_total{action}                        discovery loads, reloads, unloads and refused changes
//	aios_audit_log_failing                            1 while the audit log cannot be written (calls are
//	                                                  refused), else 0 (read at scrape)
type Metrics struct {
	reg         *prometheus.Registry
	calls       *prometheus.CounterVec
	nested      *prometheus.CounterVec
	errors      *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	rpcs        *prometheus.CounterVec
	reloads     *prometheus.CounterVec
	subscribers prometheus.Gauge
	providers   *prometheus.Desc
	tools       *prometheus.Desc
	pool        *prometheus.Desc
	auditFail   *prometheus.Desc
	srv         *Server

	// named are the tool label values that have series (namedMu): when
	// a new one comes, the series of the tools the bound host no longer
	// registers are deleted (forgetGoneTools). Calls count under RLock,
	// so none counts into a series being deleted.
	namedMu sync.RWMutex
	named   map[string]bool

	mu      sync.Mutex
	bound   *host.Host // the host whose calls are observed
	unbind  func()
	servers int // servers attached to this Metrics
}

// NewMetrics makes the metric set.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg:   prometheus.NewRegistry(),
		named: map[string]bool{},
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aios_tool_calls_total",
			Help: "Tool calls through the host's pipeline (API, CLI, MCP, nested), by tool, runtime and outcome code (OK on success)."}, []string{"tool", "runtime", "code"}),
		nested: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aios_tool_calls_nested_total",
			Help: "Nested tool calls (a tool calling a tool through the host), by runtime of the called tool."}, []string{"runtime"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aios_tool_call_errors_total",
			Help: "Failed tool calls by abi error code."}, []string{"code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "aios_tool_call_duration_seconds",
			Help:    "Tool call latency through the whole pipeline, by tool and runtime.",
			Buckets: []float64{.00005, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}, []string{"tool", "runtime"}),
		rpcs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aios_rpc_requests_total",
			Help: "JSON-RPC requests by transport and method."}, []string{"transport", "method"}),
		reloads: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aios_reloads_total",
			Help: "Discovery changes applied (load, reload, unload) or refused (error)."}, []string{"action"}),
		subscribers: prometheus.NewGauge(prometheus.GaugeOpts{Name: "aios_subscribers",
			Help: "Live tools_changed subscriptions (socket and SSE)."}),
		providers: prometheus.NewDesc("aios_providers", "Registered providers by runtime.", []string{"runtime"}, nil),
		tools:     prometheus.NewDesc("aios_tools", "Registered tool versions.", nil, nil),
		pool: prometheus.NewDesc("aios_provider_pool", "Workers or instances of a provider's pool by state (idle, busy); only providers implementing host.PoolStats.",
			[]string{"provider", "runtime", "state"}, nil),
		auditFail: prometheus.NewDesc("aios_audit_log_failing", "1 while the audit log cannot be written and calls are refused (a full disk; /health says why), else 0.", nil, nil),
	}
	m.reg.MustRegister(m.calls, m.nested, m.errors, m.latency, m.rpcs, m.reloads, m.subscribers, registryCollector{m},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// attach binds m to s and observes every call of s's host (once per host,
// however many servers share m).
func (m *Metrics) attach(s *Server) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.srv = s
	m.servers++
	if m.bound != s.h {
		if m.unbind != nil {
			m.unbind()
		}
		m.bound, m.unbind = s.h, s.h.OnCall(m.observe)
	}
}

// detach undoes attach when the last server using m closes.
func (m *Metrics) detach() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.servers--; m.servers <= 0 && m.unbind != nil {
		m.unbind()
		m.bound, m.unbind = nil, nil
	}
}

// Observe records one finished call; it is registered with the host's
// OnCall by the server, and can be registered with any host directly.
func (m *Metrics) Observe(st host.CallStats) { m.observe(st) }

func (m *Metrics) observe(st host.CallStats) {
	tool, rt := st.Tool, st.Runtime
	if st.Provider == "" {
		// The lookup failed: no tool served it. (Not told by an empty
		// runtime: a provider may name none, and its calls were
		// counted as those of unknown tools.)
		tool = "unknown"
	}
	if rt == "" {
		rt = "none"
	}
	m.call(tool, rt, st.Code, st.Latency)
	if st.Nested {
		m.nested.WithLabelValues(rt).Inc()
	}
}

// knownMethods are the label values of aios_rpc_requests_total's method:
// the API's methods (config.RPCMethods; initialize was left out and
// counted as "other").
var knownMethods = func() map[string]bool {
	m := map[string]bool{CancelMethod: true}
	for _, name := range config.RPCMethods {
		m[name] = true
	}
	return m
}()

func (m *Metrics) rpc(transport, method string) {
	if !knownMethods[method] {
		method = "other" // bounded label values
	}
	m.rpcs.WithLabelValues(transport, method).Inc()
}

func (m *Metrics) call(tool, runtime string, code abi.ErrorCode, d time.Duration) {
	c := string(code)
	if c == "" {
		c = "OK"
	} else {
		m.errors.WithLabelValues(c).Inc()
	}
	m.namedMu.RLock()
	if m.named[tool] {
		m.calls.WithLabelValues(tool, runtime, c).Inc()
		m.latency.WithLabelValues(tool, runtime).Observe(d.Seconds())
		m.namedMu.RUnlock()
		return
	}
	m.namedMu.RUnlock()
	m.namedMu.Lock()
	defer m.namedMu.Unlock()
	if !m.named[tool] {
		m.forgetGoneTools()
		m.named[tool] = true
	}
	m.calls.WithLabelValues(tool, runtime, c).Inc()
	m.latency.WithLabelValues(tool, runtime).Observe(d.Seconds())
}

// forgetGoneTools deletes the series of the tools that the bound host
// registers under no version any more (removed, or reloaded without
// them): kept, they grew with every tool name ever called (namedMu held).
func (m *Metrics) forgetGoneTools() {
	m.mu.Lock()
	h := m.bound
	m.mu.Unlock()
	if h == nil {
		return
	}
	reg := h.Registry()
	for tool := range m.named {
		if tool == "unknown" || len(reg.Versions(tool)) > 0 {
			continue
		}
		m.calls.DeletePartialMatch(prometheus.Labels{"tool": tool})
		m.latency.DeletePartialMatch(prometheus.Labels{"tool": tool})
		delete(m.named, tool)
	}
}

// Reload records a discovery event; pass it as discovery.Options.OnReload.
func (m *Metrics) Reload(ev discovery.ReloadEvent) { m.reloads.WithLabelValues(ev.Action).Inc() }

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

type registryCollector struct{ m *Metrics }

func (c registryCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.m.providers
	ch <- c.m.tools
	ch <- c.m.pool
	ch <- c.m.auditFail
}

func (c registryCollector) Collect(ch chan<- prometheus.Metric) {
	// (under mu: a server attaching sets srv while a scrape runs)
	c.m.mu.Lock()
	srv := c.m.srv
	c.m.mu.Unlock()
	if srv == nil {
		return
	}
	reg := srv.h.Registry()
	by := map[string]int{}
	for _, p := range reg.Providers() {
		by[p.Info.Runtime]++
		if ps, ok := host.PoolStatsOf(p.Impl); ok {
			idle, busy := ps.PoolStats()
			ch <- prometheus.MustNewConstMetric(c.m.pool, prometheus.GaugeValue, float64(idle), p.Info.ID, p.Info.Runtime, "idle")
			ch <- prometheus.MustNewConstMetric(c.m.pool, prometheus.GaugeValue, float64(busy), p.Info.ID, p.Info.Runtime, "busy")
		}
	}
	for rt, n := range by {
		ch <- prometheus.MustNewConstMetric(c.m.providers, prometheus.GaugeValue, float64(n), rt)
	}
	ch <- prometheus.MustNewConstMetric(c.m.tools, prometheus.GaugeValue, float64(len(reg.Tools())))
	failing := 0.0
	if srv.h.AuditFailing() != nil {
		failing = 1
	}
	ch <- prometheus.MustNewConstMetric(c.m.auditFail, prometheus.GaugeValue, failing)
}
