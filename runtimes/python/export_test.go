package python

// OfferJSONOnly makes rt's workers offer only json in their hello, as a
// worker without the msgpack module does.
func OfferJSONOnly(rt *Runtime) { rt.noMsgpack = true }
