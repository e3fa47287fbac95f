package python_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aios-host/aios-host/abi"
	"github.com/aios-host/aios-host/host"
	"github.com/aios-host/aios-host/internal/testutil"
	"github.com/aios-host/aios-host/runtimes/wasm"
)

// pdfPage is one page of a generated PDF: its content stream operators
// and whether the stream is FlateDecode-compressed.
type pdfPage struct {
	content string
	flate   bool
}

// makePDF writes a minimal valid PDF 1.4 (catalog, page tree, Helvetica,
// one content stream per page, a correct xref table).
func makePDF(pages []pdfPage) []byte {
	var buf bytes.Buffer
	var offsets []int
	obj := func(body string, stream []byte) {
		offsets = append(offsets, buf.Len())
		fmt.Fprintf(&buf, "%d 0 obj\n%s", len(offsets), body)
		if stream != nil {
			buf.WriteString("\nstream\n")
			buf.Write(stream)
			buf.WriteString("\nendstream")
		}
		buf.WriteString("\nendobj\n")
	}
	buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	kids := make([]string, len(pages))
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>", nil)
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)), nil)
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", nil)
	for i, p := range pages {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i), nil)
		data := []byte(p.content)
		filter := ""
		if p.flate {
			var z bytes.Buffer
			zw := zlib.NewWriter(&z)
			_, _ = zw.Write(data)
			_ = zw.Close()
			data, filter = z.Bytes(), " /Filter /FlateDecode"
		}
		obj(fmt.Sprintf("<< /Length %d%s >>", len(data), filter), data)
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return buf.Bytes()
}

var fixturePages = []pdfPage{
	{content: "BT /F1 12 Tf 72 720 Td (Quarterly report) Tj 0 -14 Td (Revenue grew \\(again\\).) Tj ET"},
	{content: "BT /F1 12 Tf 72 720 Td [(Hel) -20 (lo) -300 (World)] TJ T* (Second line) Tj ET"},
	{content: "BT /F1 12 Tf 72 720 Td (Compressed page three) Tj ET", flate: true},
}

// TestSeedPdfExtract drops the seed's example (samples/plugins/pdf_tools.py)
// into a host, stores a PDF generated here in the documents space and calls
// pdf-extract through the whole pipeline.
func TestSeedPdfExtract(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	src := filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "pdf_tools.py")
	if _, err := h.LoadFile(context.Background(), src, host.ProviderMeta{Source: src, Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	pdf := makePDF(fixturePages)
	id, err := h.Spaces().Put("documents", pdf)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		pages    string
		want     []string
		notWant  []string
		pageSize int64
	}{
		{"1-5", []string{"Quarterly report", "Revenue grew (again).", "Hello World", "Second line", "Compressed page three"}, nil, 3},
		{"2", []string{"Hello World\nSecond line"}, []string{"Quarterly", "Compressed"}, 3},
		{"3", []string{"Compressed page three"}, []string{"Quarterly", "Hello"}, 3},
		{"1,3", []string{"Quarterly report", "Compressed page three"}, []string{"Hello"}, 3},
	}
	for _, tc := range tests {
		t.Run(tc.pages, func(t *testing.T) {
			got, err := call(h, "pdf-extract", map[string]any{"object_id": id, "pages": tc.pages}, 0)
			if err != nil {
				t.Fatal(err)
			}
			m := got.(map[string]any)
			text, _ := m["text"].(string)
			if m["page_count"] != tc.pageSize {
				t.Errorf("page_count = %#v, want %d", m["page_count"], tc.pageSize)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("text %q does not contain %q", text, w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(text, w) {
					t.Errorf("text %q of pages %s contains %q", text, tc.pages, w)
				}
			}
		})
	}
	// The tool's capability_required is enforced by the host.
	_, err = h.Call(context.Background(), &abi.ToolCall{Caller: "nobody", Tool: "pdf-extract", Params: map[string]any{"object_id": id, "pages": "1"}})
	wantCode(t, err, abi.CapabilityDenied, "ReadSpace(documents)")
	// Not a PDF: the caller's InvalidParams naming object_id and the
	// problem (TestSeedPdfExtractNotAPDFInvalidParams).
	nid, _ := h.Spaces().Put("documents", []byte("just text"))
	_, err = call(h, "pdf-extract", map[string]any{"object_id": nid, "pages": "1"}, 0)
	wantCode(t, err, abi.InvalidParams, "object_id", "not a PDF")
	// Schema from the seed's properties dict: both properties are required.
	_, err = call(h, "pdf-extract", map[string]any{"object_id": id}, 0)
	wantCode(t, err, abi.InvalidParams)
}

// TestSeedPdfExtractBadPagesInvalidParams: a page range the caller got wrong
// (not numbers, backwards, page 0, a first page past the document's last) is
// the caller's InvalidParams naming pages and the value, not a
// ProviderError "ValueError: invalid literal for int()" that named neither,
// nor (past the last page) an empty text as if the pages held none.
func TestSeedPdfExtractBadPagesInvalidParams(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	src := filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "pdf_tools.py")
	if _, err := h.LoadFile(context.Background(), src, host.ProviderMeta{Source: src, Trust: abi.Community}); err != nil {
		t.Fatal(err)
	}
	id, err := h.Spaces().Put("documents", makePDF(fixturePages))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ pages, says string }{
		{"abc", "not a page number"},
		{"1-x", "not a page number"},
		{"2-1", "ends before it starts"},
		{"0", "pages are numbered from 1"},
		{"4", "the document has 3 pages"},
		{"1,4-9", "the document has 3 pages"},
	} {
		t.Run(tc.pages, func(t *testing.T) {
			_, err := call(h, "pdf-extract", map[string]any{"object_id": id, "pages": tc.pages}, 0)
			wantCode(t, err, abi.InvalidParams, "pages", fmt.Sprintf("%q", tc.pages), tc.says)
		})
	}
	// A range running past the last page is clipped to it, as documented.
	got, err := call(h, "pdf-extract", map[string]any{"object_id": id, "pages": "3-9"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if text, _ := got.(map[string]any)["text"].(string); text != "Compressed page three" {
		t.Fatalf("pages 3-9: text %q, want page three's", text)
	}
}

// TestCrossRuntimePythonToWasm: the Python py-thumbnail tool calls the
// WASM image-resize tool through the host.
func TestCrossRuntimePythonToWasm(t *testing.T) {
	wasmFile := filepath.Join(testutil.RepoRoot(t), "build", "wasm", "image-resize.wasm")
	if _, err := os.Stat(wasmFile); err != nil {
		t.Fatalf("%s is missing: run `make samples` first (%v)", wasmFile, err)
	}
	wl, err := wasm.NewLoader(wasm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, nil)
	h := newHost(t, rt, wl)
	for _, f := range []string{wasmFile, filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "py_thumbnail.py")} {
		if _, err := h.LoadFile(context.Background(), f, host.ProviderMeta{Source: f, Trust: abi.Community}); err != nil {
			t.Fatal(err)
		}
	}
	img := image.NewRGBA(image.Rect(0, 0, 200, 100))
	for y := 0; y < 100; y++ {
		for x := 0; x < 200; x++ {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y * 2), 128, 255})
		}
	}
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, img); err != nil {
		t.Fatal(err)
	}
	id, err := h.Spaces().Put("images", pngBuf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	got, err := call(h, "py-thumbnail", map[string]any{"object_id": id, "size": int64(32)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := got.(map[string]any)
	if m["runtime_chain"] != "python -> wasm" || m["original_size"] != int64(pngBuf.Len()) {
		t.Fatalf("py-thumbnail returned %#v", m)
	}
	thumbID, _ := m["thumbnail_id"].(string)
	data, err := h.Spaces().Get("images", thumbID)
	if err != nil {
		t.Fatalf("thumbnail %q not in the images space: %v", thumbID, err)
	}
	thumb, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if b := thumb.Bounds(); b.Dx() != 32 || b.Dy() != 32 {
		t.Fatalf("thumbnail is %v, want 32x32", b)
	}
	// Attenuation across runtimes: a caller without WriteSpace(images)
	// cannot get the WASM tool to write through the Python one.
	_, err = h.Call(context.Background(), &abi.ToolCall{Caller: "nobody", Tool: "py-thumbnail", Params: map[string]any{"object_id": id}})
	if abi.CodeOf(err) != abi.CapabilityDenied {
		t.Fatalf("nobody → py-thumbnail → image-resize: want CapabilityDenied, got %v", err)
	}
}

// TestAsyncioTools runs tools that use asyncio (sleep, gather of nested
// calls, tasks) and ctx services from plain functions.
func TestAsyncioTools(t *testing.T) {
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	loadTool(t, h, "asyncy.py", `import asyncio
from aios_sdk import Agent, Capability, tool

@Agent(id="org.test.asyncy", capabilities=[Capability.CallTool("*"), Capability.ReadSpace("documents")])
class Asyncy:
    @tool(name="ok")
    def ok(self, params):
        return {"ok": True}

    @tool(name="double", parameters={"n": {"type": "integer"}})
    async def double(self, params, ctx):
        await asyncio.sleep(0.01)
        return {"n": params["n"] * 2}

    @tool(name="fanout", parameters={"n": {"type": "integer"}})
    async def fanout(self, params, ctx):
        await ctx.log("fanning out", params["n"])
        rs = await asyncio.gather(*[ctx.call_tool("double", {"n": i}) for i in range(params["n"])])
        t = asyncio.ensure_future(asyncio.sleep(0.001, result=7))
        return {"sums": [r["n"] for r in rs], "task": await t}

    @tool(name="sync-read", parameters={"object_id": {"type": "string"}})
    def sync_read(self, params, ctx):
        obj = ctx.spaces.read(params["object_id"]).wait()
        return {"text": obj.text(), "id": obj.id, "space": obj.space}

    @tool(name="nested-error")
    async def nested_error(self, params, ctx):
        return await ctx.call_tool("no-such-tool", {})
`)
	got, err := call(h, "fanout", map[string]any{"n": int64(5)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"sums": []any{int64(0), int64(2), int64(4), int64(6), int64(8)}, "task": int64(7)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fanout = %#v, want %#v", got, want)
	}
	id, _ := h.Spaces().Put("documents", []byte("hello from a space"))
	got, err = call(h, "sync-read", map[string]any{"object_id": id}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"text": "hello from a space", "id": id, "space": "documents"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("sync-read = %#v, want %#v", got, want)
	}
	_, err = call(h, "nested-error", map[string]any{}, 0)
	wantCode(t, err, abi.NotFound, "no-such-tool")
	stillServes(t, h, "asyncio calls")
}

// TestSeedWithHelperModule: the seed's example verbatim in its own file,
// its helpers imported from a module beside it (the folder is on the
// worker's path and readable under Landlock).
func TestSeedWithHelperModule(t *testing.T) {
	seed := `from aios_sdk import Agent, tool, Capability
from pdf_helpers import extract_pdf_text, count_pages

@Agent(
    name="PDF Tools",
    capabilities=[Capability.ReadSpace("documents")]
)
class PdfTools:

    @tool(
        name="pdf-extract",
        description="Extract text and metadata from a PDF document",
        capability_required=Capability.ReadSpace("documents"),
        parameters={
            "object_id": {"type": "string", "description": "ObjectId of the PDF"},
            "pages": {"type": "string", "description": "Page range, e.g. '1-5'"},
        }
    )
    async def extract(self, params, ctx):
        obj = await ctx.spaces.read(params["object_id"])
        text = extract_pdf_text(obj, params.get("pages"))
        return {"text": text, "page_count": count_pages(obj)}
`
	path := writeTool(t, "seed_pdf.py", seed)
	helpers, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "samples", "plugins", "pdf_tools.py"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "pdf_helpers.py"), helpers, 0o644); err != nil {
		t.Fatal(err)
	}
	rt := newRuntime(t, nil)
	h := newHost(t, rt)
	// Tool and helper in a folder of their own (a bare file at the top of
	// a plugin folder may read only itself).
	if _, err := h.LoadFile(context.Background(), path, host.ProviderMeta{Trust: abi.Community, Unit: filepath.Dir(path)}); err != nil {
		t.Fatal(err)
	}
	id, _ := h.Spaces().Put("documents", makePDF(fixturePages))
	got, err := call(h, "pdf-extract", map[string]any{"object_id": id, "pages": "2-3"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m := got.(map[string]any); m["page_count"] != int64(3) || !strings.Contains(m["text"].(string), "Compressed page three") {
		t.Fatalf("pdf-extract = %#v", m)
	}
}

// TestSitePackagesOnPath: workers start with -S (fast), yet the
// interpreter's site-packages folders are on sys.path.
func TestSitePackagesOnPath(t *testing.T) {
	out, err := exec.Command("python3", "-I", "-c", "import sys;print('\\n'.join(p for p in sys.path if p.endswith(('site-packages','dist-packages'))))").Output()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	want := strings.Fields(string(out))
	rt := newRuntime(t, nil)
	p, err := rt.Load(context.Background(), abi.Source{Path: writeTool(t, "paths.py", `import sys
from aios_sdk import Agent, tool
@Agent(id="org.test.paths")
class Paths:
    @tool(name="paths")
    def paths(self, params):
        return {"path": sys.path, "no_site": sys.flags.no_site}
`)})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	v, err := p.Call(context.Background(), &abi.ToolCall{ID: "c", Tool: "paths", Params: map[string]any{}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	got := map[string]bool{}
	for _, e := range m["path"].([]any) {
		got[e.(string)] = true
	}
	for _, w := range want {
		if !got[w] {
			t.Errorf("worker sys.path lacks %s: %v", w, m["path"])
		}
	}
	if m["no_site"] != int64(1) {
		t.Errorf("worker started without -S: no_site=%v", m["no_site"])
	}
}
