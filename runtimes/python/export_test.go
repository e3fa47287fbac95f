package python

// OfferJSONOnly makes rt's workers offer only json in their hello, as a
// worker without the msgpack module does.
func OfferJSONOnly(rt *Runtime) { rt.noMsgpack = true }

// NoPIDNamespace makes rt start its workers without a PID namespace.
func NoPIDNamespace(rt *Runtime) { rt.noPIDNS = true }

// MaxCallConns is the most brokered connections a call holds open.
const MaxCallConns = maxCallConns
