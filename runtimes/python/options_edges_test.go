package python_test

import (
	"context"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
)

// TestOptionTypesCheckedWhereDeclared: an option of @tool, @Agent or
// provider(...) of the wrong type (examples=[{"params": …}], tags=[1],
// version=1, latency_class=5, description=5, returns=5, a deprecation's
// since=1, provider(id=5)) failed the load with "registering: the worker
// wrote an unreadable frame: msgpack: invalid code=82 decoding string/bytes
// length (0x83a17601…)", naming neither the option nor the line; and tags
// or examples given as one string (tags="search") were split into a tag of
// each letter without a word. Each is now refused at the line that
// declares it, naming the option, what it must be and what it got.
func TestOptionTypesCheckedWhereDeclared(t *testing.T) {
	h := newHost(t, newRuntime(t, nil))
	for _, tc := range []struct {
		name, src string
		contains  []string
	}{
		{"examples_dicts.py", "from aios_sdk import tool\n\n@tool(name='a', examples=[{'params': {'q': 'x'}}])\ndef a(p): return {}\n",
			[]string{"examples_dicts.py:3", "@tool a: examples must be a list of strings, got dict"}},
		{"tags_ints.py", "from aios_sdk import tool\n@tool(name='a', tags=[1, 2])\ndef a(p): return {}\n",
			[]string{"tags_ints.py:2", "@tool a: tags must be a list of strings, got int 1"}},
		{"tags_str.py", "from aios_sdk import tool\n@tool(name='a', tags='search')\ndef a(p): return {}\n",
			[]string{"tags_str.py:2", "@tool a: tags must be a list of strings, got str 'search'", "tags=['search']"}},
		{"examples_str.py", "from aios_sdk import tool\n@tool(name='a', examples='an example')\ndef a(p): return {}\n",
			[]string{"examples_str.py:2", "@tool a: examples must be a list of strings, got str 'an example'"}},
		{"version_int.py", "from aios_sdk import tool\n@tool(name='a', version=1)\ndef a(p): return {}\n",
			[]string{"version_int.py:2", "@tool a: version must be a str, got int 1"}},
		{"latency_int.py", "from aios_sdk import tool\n@tool(name='a', latency_class=5)\ndef a(p): return {}\n",
			[]string{"latency_int.py:2", "@tool a: latency_class must be a str, got int 5"}},
		{"desc_int.py", "from aios_sdk import tool\n@tool(name='a', description=5)\ndef a(p): return {}\n",
			[]string{"desc_int.py:2", "@tool a: description must be a str, got int 5"}},
		{"returns_int.py", "from aios_sdk import tool\n@tool(name='a', returns=5)\ndef a(p): return {}\n",
			[]string{"returns_int.py:2", "@tool a: returns must be a dict (a JSON Schema or property schemas), got int 5"}},
		{"deprecation_since.py", "from aios_sdk import tool\n@tool(name='a', deprecation={'since': 1, 'message': 'm'})\ndef a(p): return {}\n",
			[]string{"deprecation_since.py:2", "@tool a: deprecation's since must be a str, got int 1"}},
		{"provider_id.py", "from aios_sdk import provider, tool\nprovider(id=5)\n@tool(name='a')\ndef a(p): return {}\n",
			[]string{"provider_id.py:2", "provider: id must be a str, got int 5"}},
		{"agent_version.py", "from aios_sdk import Agent, tool\n@Agent(version=2)\nclass A:\n    @tool(name='a')\n    def a(self, p): return {}\n",
			[]string{"agent_version.py:2", "@Agent: version must be a str, got int 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := h.LoadFile(context.Background(), writeTool(t, tc.name, tc.src), host.ProviderMeta{Trust: abi.System})
			checkLoadErr(t, err, tc.contains)
		})
	}
	// Lists and tuples of strings, and None for unset, still load.
	loadTool(t, h, "fine_opts.py", "from aios_sdk import provider, tool\nprovider(id='org.x.fine', version=None, description=None)\n"+
		"@tool(name='fine', tags=('x', 'y'), examples=['e'], description=None, version=None, returns=None, deprecation={'since': '1.0.0', 'message': 'm'})\ndef a(p): return {}\n")
}
