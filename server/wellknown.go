package server

import (
	"bytes"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/discovery"
	"github.com/aios-host/aios-host/registry"
	"github.com/aios-host/aios-host/server/jsonrpc"
	"github.com/aios-host/aios-host/trust"
)

// HostID is the adapter id of the host's own card: server.id, else
// org.aios.host.<hostname>.
func (s *Server) HostID() string {
	if s.cfg.ID != "" {
		return s.cfg.ID
	}
	name, _ := os.Hostname()
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	label := strings.Trim(b.String(), "-")
	if label == "" {
		label = "localhost"
	}
	return "org.aios.host." + label
}

// exported reports whether e goes into the host card: tools marked
// mcp_exportable or matching server.export, served here (not by a remote
// adapter, which would make two federated hosts echo each other's tools).
func (s *Server) exported(e *registry.Entry) bool {
	if e.Provider.Info.Runtime == abi.RuntimeRemote {
		return false
	}
	// A tool's own mcp_exportable claim puts it in the card only when its
	// provider is trusted above Untrusted: the card is signed with the
	// host's key, and a peer that trusts that key registers its skills at
	// the key's trust, so an unsigned file (or a bridged MCP server) marking
	// its tools exportable would have them vouched for. The operator can
	// still export any local tool by name (server.export).
	if e.Def.MCPExportable && e.Provider.Trust > abi.Untrusted {
		return true
	}
	for _, p := range s.cfg.Export {
		if abi.Glob(p, e.Def.Name) {
			return true
		}
	}
	return false
}

// hostDeclaration is the adapter record and capabilities of the host's own
// card, which initialize also answers.
func (s *Server) hostDeclaration() (discovery.AdapterInfo, discovery.CardCapabilities) {
	name := s.cfg.Name
	if name == "" {
		name = "aios-host " + s.HostID()
	}
	return discovery.AdapterInfo{ID: s.HostID(), Name: name, Description: "Tools exported by an aios-host Tool Manager",
			Version: Version, ProtocolVersion: discovery.ProtocolVersion},
		discovery.CardCapabilities{BatchOperations: true, PushNotifications: true}
}

// HostCard returns the host's own Adapter Card, signed when a signing key
// is configured. A card whose content did not change since it was last
// signed is not signed again: the same bytes are returned (do not modify
// them).
func (s *Server) HostCard() ([]byte, error) {
	adapter, caps := s.hostDeclaration()
	base := s.PublicURL()
	card := &discovery.Card{
		Adapter:        adapter,
		Capabilities:   caps,
		Skills:         []discovery.Skill{},
		Authentication: &discovery.Authentication{Required: true, Schemes: []string{"bearer"}},
	}
	// A listener on the unspecified address ([::], 0.0.0.0) with no
	// server.public_url: no peer reaches this host there (one dialling it
	// reaches itself), so the card names no endpoints and peers call the
	// URL they fetched it from.
	if u, err := url.Parse(base); base != "" && (err != nil || !net.ParseIP(u.Hostname()).IsUnspecified()) {
		card.Endpoints = &discovery.Endpoints{RPC: base + "/rpc", HTTP: base, Health: "/health", Metrics: "/metrics"}
	}
	reg := s.h.Registry()
	newest := map[string]*registry.Entry{}
	for _, e := range reg.Tools() {
		if !s.exported(e) {
			continue
		}
		if cur := newest[e.Def.Name]; cur == nil || e.Version.GreaterThan(cur.Version) {
			newest[e.Def.Name] = e
		}
	}
	// A skill describes the version a call without a version reaches
	// (the default), when that one is exported; else the newest exported.
	for name := range newest {
		if def, err := reg.Resolve(name, ""); err == nil && s.exported(def) {
			newest[name] = def
		}
	}
	for _, e := range newest {
		card.Skills = append(card.Skills, discovery.SkillFromTool(e.Def))
	}
	sort.Slice(card.Skills, func(i, j int) bool { return card.Skills[i].ID < card.Skills[j].ID })
	raw, err := card.Marshal()
	if err != nil {
		return nil, err
	}
	canon, err := trust.Canonicalize(raw)
	if err != nil {
		return nil, err
	}
	signer := s.signer
	if signer == nil {
		return canon, nil
	}
	s.cardMu.Lock()
	defer s.cardMu.Unlock()
	if s.cardSigner == signer && bytes.Equal(s.cardCanon, canon) {
		return s.cardSigned, nil
	}
	signed, err := trust.SignCard(canon, *signer)
	if err != nil {
		return nil, err
	}
	s.cardCanon, s.cardSigner, s.cardSigned = canon, signer, signed
	return signed, nil
}

func (s *Server) serveCard(w http.ResponseWriter, _ *http.Request) {
	b, err := s.HostCard()
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, mustMarshal(errorResponse(nil, jsonrpc.Errorf(abi.Internal, "building the host card: %v", err))))
		return
	}
	writeJSON(w, http.StatusOK, b)
}

func (s *Server) serveJWKS(w http.ResponseWriter, _ *http.Request) {
	var b []byte
	var err error
	if s.signer != nil {
		b, err = trust.MarshalJWKS(s.signer.PublicJWK())
	} else {
		b, err = trust.MarshalJWKS()
	}
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, mustMarshal(errorResponse(nil, jsonrpc.Errorf(abi.Internal, "%v", err))))
		return
	}
	w.Header().Set("Content-Type", "application/jwk-set+json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}
