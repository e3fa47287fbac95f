package server

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/discovery"
)

// Metrics are the Prometheus metrics served at /metrics. Each Metrics has
// its own registry (no global state).
//
//	aios_tool_calls_total{tool,runtime,code}          calls served over the API (code "OK" on success)
//	aios_tool_call_errors_total{code}                 failed calls by abi error code
//	aios_tool_call_duration_seconds{tool,runtime}     latency histogram
//	aios_rpc_requests_total{transport,method}         JSON-RPC requests
//	aios_providers{runtime}, aios_tools               registry sizes (read at scrape)
//	aios_subscribers                                  live tools_changed subscriptions
//	aios_reloads_total{action}                        discovery loads, reloads, unloads and refused changes
type Metrics struct {
	reg         *prometheus.Registry
	calls       *prometheus.CounterVec
	errors      *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	rpcs        *prometheus.CounterVec
	reloads     *prometheus.CounterVec
	subscribers prometheus.Gauge
	providers   *prometheus.Desc
	tools       *prometheus.Desc
	srv         *Server
}

// NewMetrics makes the metric set.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "aios_tool_calls_total",
			Help: "Tool calls served over the API, by tool, runtime and outcome code (OK on success)."}, []string{"tool", "runtime", "code"}),
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
	}
	m.reg.MustRegister(m.calls, m.errors, m.latency, m.rpcs, m.reloads, m.subscribers, registryCollector{m},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *Metrics) attach(s *Server) { m.srv = s }

var knownMethods = map[string]bool{"tools/list": true, "tools/call": true, "aios/registry.search": true,
	"aios/registry.info": true, "aios/registry.refresh": true, "aios/registry.subscribe": true, "aios/registry.unsubscribe": true}

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
	if runtime == "" {
		runtime = "none" // the lookup failed: no tool served it
		tool = "unknown"
	}
	m.calls.WithLabelValues(tool, runtime, c).Inc()
	m.latency.WithLabelValues(tool, runtime).Observe(d.Seconds())
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
}

func (c registryCollector) Collect(ch chan<- prometheus.Metric) {
	if c.m.srv == nil {
		return
	}
	reg := c.m.srv.h.Registry()
	by := map[string]int{}
	for _, p := range reg.Providers() {
		by[p.Info.Runtime]++
	}
	for rt, n := range by {
		ch <- prometheus.MustNewConstMetric(c.m.providers, prometheus.GaugeValue, float64(n), rt)
	}
	ch <- prometheus.MustNewConstMetric(c.m.tools, prometheus.GaugeValue, float64(len(reg.Tools())))
}
