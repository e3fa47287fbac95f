"""The seed's Python tool example (§9.4) made real: pdf-extract.

The PdfTools class below is the seed's code unchanged; this file adds the two
helpers it relies on, extract_pdf_text and count_pages, written with the
standard library only.

Limits of the extractor (it is a demo, not a PDF library):
- text is taken from the page content streams' text operators (Tj, TJ, ',
  ") as literal (...) or hex <...> strings, decoded as Latin-1: right for
  the standard 14 fonts and WinAnsi-like encodings, wrong for CID/Type0
  fonts and custom encodings (no ToUnicode CMaps);
- streams may be uncompressed or FlateDecode (zlib); other filters
  (LZW, ASCII85, DCT...) are skipped;
- objects inside object streams (/Type /ObjStm, PDF 1.5+ "compressed"
  files) and encrypted PDFs are not read;
- pages are found in file order of their /Type /Page objects, which is
  the page order for simple files (the /Pages tree is not walked).
"""

import json
import re
import zlib

from aios_sdk import Agent, tool, Capability, ToolError

# ---- helpers the seed leaves to the reader ---------------------------------

_OBJ_RE = re.compile(rb"(\d+)\s+(\d+)\s+obj\b(.*?)\bendobj", re.S)
_STREAM_RE = re.compile(rb"^(.*?)\bstream\r?\n(.*?)\r?\n?endstream", re.S)
_PAGE_RE = re.compile(rb"/Type\s*/Page(?![A-Za-z])")
_REF_RE = re.compile(rb"(\d+)\s+\d+\s+R")


def _objects(data):
    """{object number: (dictionary bytes, stream bytes or None)}."""
    out = {}
    for m in _OBJ_RE.finditer(bytes(data)):
        body = m.group(3)
        sm = _STREAM_RE.match(body)
        if sm:
            out[int(m.group(1))] = (sm.group(1), sm.group(2))
        else:
            out[int(m.group(1))] = (body, None)
    return out


def _decode_stream(dictionary, raw):
    m = re.search(rb"/Length\s+(\d+)(?!\s+\d+\s+R)", dictionary)
    if m and int(m.group(1)) <= len(raw):
        raw = raw[: int(m.group(1))]
    if b"/FlateDecode" in dictionary:
        try:
            return zlib.decompress(raw)
        except zlib.error:
            return zlib.decompressobj().decompress(raw)
    if b"/Filter" in dictionary:
        return b""  # a filter this extractor does not know
    return raw


def _pages(data):
    """The page objects' dictionaries, in file order."""
    objs = _objects(data)
    return objs, [d for _, (d, s) in sorted(objs.items()) if s is None and _PAGE_RE.search(d)]


def count_pages(data):
    """Number of /Type /Page objects in the PDF."""
    return len(_pages(data)[1])


def _page_range(spec, n):
    """'1-3,5' → [0, 1, 2, 4] (1-based, inclusive, the last page of a range
    clipped to n pages). A range the caller got wrong (not numbers,
    backwards, page 0, a first page past the last) is their InvalidParams
    naming pages and the value."""
    if spec is None or str(spec).strip() in ("", "all", "*"):
        return list(range(n))

    def bad(why):
        return ToolError(ToolError.InvalidParams,
                         "pages %s: %s" % (json.dumps(str(spec), ensure_ascii=False), why))

    def number(s):
        s = s.strip()
        if not (s.isascii() and s.isdigit()):
            raise bad("%s is not a page number (write e.g. '1-5', '2' or '1,3')"
                      % json.dumps(s, ensure_ascii=False))
        return int(s)

    pages = []
    for part in str(spec).split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            lo = number(a) if a.strip() else 1
            hi = number(b) if b.strip() else n
        else:
            lo = hi = number(part)
        if lo < 1:
            raise bad("pages are numbered from 1")
        if hi < lo:
            raise bad("the range %s ends before it starts" % part)
        if lo > n:
            raise bad("page %d is past the end: the document has %d page%s"
                      % (lo, n, "" if n == 1 else "s"))
        pages.extend(i - 1 for i in range(lo, min(hi, n) + 1))
    return pages


_ESCAPES = {b"n": b"\n", b"r": b"\r", b"t": b"\t", b"b": b"\b", b"f": b"\f",
            b"(": b"(", b")": b")", b"\\": b"\\"}


def _literal(s, i):
    """Parse the literal string starting after '(' at s[i]; returns (bytes, next index)."""
    out, depth = bytearray(), 1
    while i < len(s):
        c = s[i:i + 1]
        if c == b"\\":
            nxt = s[i + 1:i + 2]
            if nxt in _ESCAPES:
                out += _ESCAPES[nxt]
                i += 2
            elif nxt.isdigit():
                j = i + 1
                while j < len(s) and j < i + 4 and s[j:j + 1].isdigit():
                    j += 1
                out.append(int(s[i + 1:j], 8) & 0xFF)
                i = j
            elif nxt in (b"\n", b"\r"):
                i += 2
            else:
                i += 1
            continue
        if c == b"(":
            depth += 1
        elif c == b")":
            depth -= 1
            if depth == 0:
                return bytes(out), i + 1
        out += c
        i += 1
    return bytes(out), i


_TOKEN_RE = re.compile(rb"\(|<[0-9A-Fa-f\s]*>|\[|\]|-?\d*\.?\d+|/[^\s/\[\]()<>]+|[A-Za-z'\"*]+")


def _content_text(content):
    """The text shown by one content stream, a line per text line."""
    lines, cur, operands = [], [], []
    i = 0
    while True:
        m = _TOKEN_RE.search(content, i)
        if not m:
            break
        tok = m.group(0)
        i = m.end()
        if tok == b"(":
            s, i = _literal(content, i)
            operands.append(s)
        elif tok.startswith(b"<"):
            h = re.sub(rb"\s", b"", tok[1:-1])
            if len(h) % 2:
                h += b"0"
            operands.append(bytes.fromhex(h.decode()))
        elif tok in (b"[", b"]"):
            operands.append(tok)
        elif tok[:1].isdigit() or tok[:1] in (b"-", b"."):
            operands.append(float(tok))
        elif tok.startswith(b"/"):
            operands.append(tok)
        else:
            op = tok
            if op == b"Tj" or op in (b"'", b'"'):
                if op != b"Tj" and cur:
                    lines.append("".join(cur))
                    cur = []
                strs = [o for o in operands if isinstance(o, bytes) and o not in (b"[", b"]") and not o.startswith(b"/")]
                if strs:
                    cur.append(strs[-1].decode("latin-1"))
            elif op == b"TJ":
                for o in operands:
                    if isinstance(o, float) and o < -200:
                        cur.append(" ")
                    elif isinstance(o, bytes) and o not in (b"[", b"]") and not o.startswith(b"/"):
                        cur.append(o.decode("latin-1"))
            elif op in (b"T*", b"ET") or (op in (b"Td", b"TD") and len(operands) >= 2 and operands[-1] != 0):
                if cur:
                    lines.append("".join(cur))
                    cur = []
            operands = []
    if cur:
        lines.append("".join(cur))
    return "\n".join(line.rstrip() for line in lines)


def extract_pdf_text(data, pages=None):
    """Text of the given pages ('1-5', '2', '1,3'; None or '' for all)."""
    data = bytes(data)
    if not data.startswith(b"%PDF-"):
        # The caller named the wrong object: theirs to fix, as a bad
        # page range is.
        raise ToolError(ToolError.InvalidParams,
                        "object_id: the object is not a PDF (it does not begin with %%PDF-; "
                        "its first bytes: %s)"
                        % json.dumps(data[:16].decode("latin-1"), ensure_ascii=True))
    objs, page_dicts = _pages(data)
    texts = []
    for idx in _page_range(pages, len(page_dicts)):
        d = page_dicts[idx]
        m = re.search(rb"/Contents\s*(\[[^\]]*\]|\d+\s+\d+\s+R)", d)
        parts = []
        if m:
            for ref in _REF_RE.findall(m.group(1)):
                entry = objs.get(int(ref))
                if entry and entry[1] is not None:
                    parts.append(_decode_stream(entry[0], entry[1]))
        texts.append(_content_text(b"\n".join(parts)))
    return "\n\f\n".join(texts)


# ---- the seed's example, unchanged ----------------------------------------

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
