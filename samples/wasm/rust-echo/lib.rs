//! rust-echo: an AIOS guest in Rust without any SDK or crate, speaking the
//! MessagePack encoding of the guest ABI v1 (docs/abi.md) by hand. Built with
//! Debian's rustc 1.63 (never the rustup one) and its wasm32 std:
//!
//!     /usr/bin/rustc --edition 2021 --crate-type cdylib \
//!         --target wasm32-unknown-unknown -O -o rust-echo.wasm lib.rs
//!
//! Exports: memory, aios_alloc/aios_free (Rust's allocator), aios_abi_version,
//! aios_register, aios_call. Import: aios.log.
//!
//! Tools (the conformance table's shapes):
//!   rust-echo {"value": any}       -> {"value": <the same bytes>}
//!   rust-add  {"a": int, "b": int} -> {"sum": a+b}
//!
//! Like the C guest it copies the MessagePack bytes of params.value without
//! decoding them, and validates every input: malformed or truncated
//! MessagePack gets an error result, never a trap.

use std::alloc::{alloc, dealloc, Layout};

#[link(wasm_import_module = "aios")]
extern "C" {
    fn log(level: u32, ptr: *const u8, len: u32);
}

fn layout(len: u32) -> Layout {
    // Never zero-sized; 8-aligned like the other guests.
    Layout::from_size_align(len.max(1) as usize, 8).unwrap()
}

/// aios_alloc: a buffer of len bytes the host may write, 0 when out of memory.
#[no_mangle]
pub extern "C" fn aios_alloc(len: u32) -> u32 {
    unsafe { alloc(layout(len)) as u32 }
}

/// aios_free releases a buffer from aios_alloc (the host passes its length).
#[no_mangle]
pub extern "C" fn aios_free(ptr: u32, len: u32) {
    if ptr != 0 {
        unsafe { dealloc(ptr as *mut u8, layout(len)) }
    }
}

#[no_mangle]
pub extern "C" fn aios_abi_version() -> u32 {
    1
}

fn pack(b: &[u8]) -> u64 {
    ((b.as_ptr() as u32 as u64) << 32) | b.len() as u64
}

// ---- MessagePack writer ----------------------------------------------------

struct W(Vec<u8>);

impl W {
    fn map(&mut self, n: u32) -> &mut Self {
        match n {
            0..=15 => self.0.push(0x80 | n as u8),
            16..=0xffff => {
                self.0.push(0xde);
                self.0.extend_from_slice(&(n as u16).to_be_bytes());
            }
            _ => {
                self.0.push(0xdf);
                self.0.extend_from_slice(&n.to_be_bytes());
            }
        }
        self
    }
    fn arr(&mut self, n: u32) -> &mut Self {
        match n {
            0..=15 => self.0.push(0x90 | n as u8),
            16..=0xffff => {
                self.0.push(0xdc);
                self.0.extend_from_slice(&(n as u16).to_be_bytes());
            }
            _ => {
                self.0.push(0xdd);
                self.0.extend_from_slice(&n.to_be_bytes());
            }
        }
        self
    }
    fn str(&mut self, s: &str) -> &mut Self {
        let n = s.len();
        if n < 32 {
            self.0.push(0xa0 | n as u8);
        } else if n < 256 {
            self.0.push(0xd9);
            self.0.push(n as u8);
        } else if n < 65536 {
            self.0.push(0xda);
            self.0.extend_from_slice(&(n as u16).to_be_bytes());
        } else {
            self.0.push(0xdb);
            self.0.extend_from_slice(&(n as u32).to_be_bytes());
        }
        self.0.extend_from_slice(s.as_bytes());
        self
    }
    fn kv(&mut self, k: &str, v: &str) -> &mut Self {
        self.str(k).str(v)
    }
    fn bool(&mut self, b: bool) -> &mut Self {
        self.0.push(if b { 0xc3 } else { 0xc2 });
        self
    }
    fn int(&mut self, v: i64) -> &mut Self {
        if (0..128).contains(&v) {
            self.0.push(v as u8);
        } else if (-32..0).contains(&v) {
            self.0.push(v as i8 as u8);
        } else if v >= i32::MIN as i64 && v <= i32::MAX as i64 {
            self.0.push(0xd2);
            self.0.extend_from_slice(&(v as i32).to_be_bytes());
        } else {
            self.0.push(0xd3);
            self.0.extend_from_slice(&v.to_be_bytes());
        }
        self
    }
    fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }
}

// ---- MessagePack reader ----------------------------------------------------

const MAX_DEPTH: usize = 512;

struct R<'a> {
    b: &'a [u8],
    i: usize,
}

type Res<T> = Result<T, &'static str>;

impl<'a> R<'a> {
    fn byte(&mut self) -> Res<u8> {
        let c = *self.b.get(self.i).ok_or("truncated MessagePack")?;
        self.i += 1;
        Ok(c)
    }
    fn take(&mut self, n: u64) -> Res<&'a [u8]> {
        if n > (self.b.len() - self.i) as u64 {
            return Err("truncated MessagePack");
        }
        let s = &self.b[self.i..self.i + n as usize];
        self.i += n as usize;
        Ok(s)
    }
    fn be(&mut self, n: u64) -> Res<u64> {
        Ok(self.take(n)?.iter().fold(0u64, |v, &c| v << 8 | c as u64))
    }
    fn str(&mut self) -> Res<&'a [u8]> {
        let n = match self.byte()? {
            c @ 0xa0..=0xbf => (c & 0x1f) as u64,
            c @ 0xd9..=0xdb => self.be(1 << (c - 0xd9))?,
            _ => return Err("a map key or tool name is not a string"),
        };
        self.take(n)
    }
    fn map(&mut self) -> Res<u64> {
        match self.byte()? {
            c @ 0x80..=0x8f => Ok((c & 0x0f) as u64),
            0xde => self.be(2),
            0xdf => self.be(4),
            _ => Err("not a map"),
        }
    }
    /// skip steps over one JSON value and validates it (lengths in bounds,
    /// string map keys, no bin/ext/0xc1, no NaN/infinity, nesting at most
    /// MAX_DEPTH), iteratively: left holds the items still to read per level.
    fn skip(&mut self) -> Res<()> {
        let mut left: Vec<(u64, bool)> = vec![(1, false)];
        while let Some(top) = left.last_mut() {
            if top.0 == 0 {
                left.pop();
                continue;
            }
            let key = top.1 && top.0 % 2 == 0;
            top.0 -= 1;
            if key {
                self.str()?;
                continue;
            }
            let c = self.byte()?;
            let (items, is_map) = match c {
                0x00..=0x7f | 0xe0..=0xff | 0xc0 | 0xc2 | 0xc3 => continue,
                0xa0..=0xbf => {
                    self.take((c & 0x1f) as u64)?;
                    continue;
                }
                0xcc | 0xd0 => {
                    self.take(1)?;
                    continue;
                }
                0xcd | 0xd1 => {
                    self.take(2)?;
                    continue;
                }
                0xce | 0xd2 => {
                    self.take(4)?;
                    continue;
                }
                0xcf | 0xd3 => {
                    self.take(8)?;
                    continue;
                }
                0xca => {
                    let f = f32::from_bits(self.be(4)? as u32);
                    if !f.is_finite() {
                        return Err("NaN and infinities are not JSON numbers");
                    }
                    continue;
                }
                0xcb => {
                    let f = f64::from_bits(self.be(8)?);
                    if !f.is_finite() {
                        return Err("NaN and infinities are not JSON numbers");
                    }
                    continue;
                }
                0xd9..=0xdb => {
                    let n = self.be(1 << (c - 0xd9))?;
                    self.take(n)?;
                    continue;
                }
                0x90..=0x9f => ((c & 0x0f) as u64, false),
                0x80..=0x8f => (2 * (c & 0x0f) as u64, true),
                0xdc => (self.be(2)?, false),
                0xdd => (self.be(4)?, false),
                0xde => (2 * self.be(2)?, true),
                0xdf => (2 * self.be(4)?, true),
                0xc4..=0xc6 => return Err("bin is not a JSON value"),
                0xc1 => return Err("0xc1 is not MessagePack"),
                _ => return Err("MessagePack extension types are not JSON values"),
            };
            if items == 0 {
                continue;
            }
            // Every item takes at least a byte.
            if items > (self.b.len() - self.i) as u64 {
                return Err("truncated MessagePack");
            }
            if left.len() > MAX_DEPTH {
                return Err("value nested deeper than 512 levels");
            }
            left.push((items, is_map));
        }
        Ok(())
    }
    /// field finds key in the (validated) map at the reader's position and
    /// returns a reader at its value.
    fn field(mut self, key: &str) -> Res<Option<R<'a>>> {
        let n = self.map()?;
        for _ in 0..n {
            if self.str()? == key.as_bytes() {
                return Ok(Some(self));
            }
            self.skip()?;
        }
        Ok(None)
    }
    fn int(&mut self) -> Res<i64> {
        let c = self.byte()?;
        Ok(match c {
            0x00..=0x7f => c as i64,
            0xe0..=0xff => c as i8 as i64,
            0xcc..=0xcf => {
                let u = self.be(1 << (c - 0xcc))?;
                i64::try_from(u).map_err(|_| "integer out of the int64 range")?
            }
            0xd0 => self.be(1)? as u8 as i8 as i64,
            0xd1 => self.be(2)? as u16 as i16 as i64,
            0xd2 => self.be(4)? as u32 as i32 as i64,
            0xd3 => self.be(8)? as i64,
            0xcb => {
                let f = f64::from_bits(self.be(8)?);
                if !(-9.2e18..=9.2e18).contains(&f) || f.fract() != 0.0 {
                    return Err("not an integer");
                }
                f as i64
            }
            _ => return Err("not an integer"),
        })
    }
}

// ---- the guest --------------------------------------------------------------

// The guest is single-threaded: these buffers live as long as the instance.
static mut REGISTER: Vec<u8> = Vec::new();
static mut OUT: Vec<u8> = Vec::new();
static mut LOGGED: bool = false;

#[no_mangle]
pub extern "C" fn aios_register() -> u64 {
    let reg = unsafe { &mut REGISTER };
    if reg.is_empty() {
        let mut w = W(Vec::new());
        w.map(3).str("format").int(1);
        w.str("provider").map(3);
        w.kv("id", "org.aios.samples.rust-echo").kv("name", "Rust echo (no SDK)").kv("version", "1.0.0");
        w.str("tools").arr(2);
        w.map(4).kv("name", "rust-echo");
        w.kv("description", "Returns {\"value\": params.value} (Rust guest without SDK, MessagePack ABI).");
        w.str("idempotent").bool(true);
        w.str("parameters").map(3).kv("type", "object");
        w.str("properties").map(1).str("value").map(0);
        w.str("required").arr(1).str("value");
        w.map(4).kv("name", "rust-add");
        w.kv("description", "Adds two integers (Rust guest without SDK).");
        w.str("idempotent").bool(true);
        w.str("parameters").map(4).kv("type", "object");
        w.str("properties").map(2);
        w.str("a").map(1).kv("type", "integer");
        w.str("b").map(1).kv("type", "integer");
        w.str("required").arr(2).str("a").str("b");
        w.str("additionalProperties").bool(false);
        *reg = w.0;
    }
    pack(reg)
}

fn error(code: &str, msg: &str, detail: &str) -> u64 {
    let out = unsafe { &mut OUT };
    out.clear();
    let mut w = W(std::mem::take(out));
    let text = if detail.is_empty() { msg.to_string() } else { format!("{}: {}", msg, detail) };
    w.map(1).str("error").map(2).kv("code", code).kv("message", &text);
    *out = w.0;
    pack(out)
}

fn serve(msg: &[u8]) -> Result<u64, (&'static str, &'static str, &'static str)> {
    const BAD: &str = "rust-echo: malformed MessagePack call";
    let mut r = R { b: msg, i: 0 };
    let n = r.map().map_err(|e| ("InvalidRequest", "rust-echo: the call is not a MessagePack map", e))?;
    let (mut tool, mut params) = (None, None);
    for _ in 0..n {
        let key = r.str().map_err(|e| ("InvalidRequest", BAD, e))?;
        if key == b"tool" {
            tool = Some(r.str().map_err(|e| ("InvalidRequest", "rust-echo: call.tool is not a string", e))?);
            continue;
        }
        if key == b"params" {
            params = Some(R { b: msg, i: r.i });
        }
        r.skip().map_err(|e| ("InvalidRequest", BAD, e))?;
    }
    if r.i != msg.len() {
        return Err(("InvalidRequest", "rust-echo: trailing bytes after the MessagePack call", ""));
    }
    let (tool, params) = match (tool, params) {
        (Some(t), Some(p)) => (t, p),
        _ => return Err(("InvalidRequest", "rust-echo: call without tool or params", "")),
    };
    if (R { b: msg, i: params.i }).map().is_err() {
        return Err(("InvalidParams", "rust-echo: params is not a map", ""));
    }
    let out = unsafe { &mut OUT };
    out.clear();
    let mut w = W(std::mem::take(out));
    match tool {
        b"rust-echo" => {
            let mut v = params
                .field("value")
                .ok()
                .flatten()
                .ok_or(("InvalidParams", "rust-echo: params.value is required", ""))?;
            let start = v.i;
            v.skip().map_err(|e| ("InvalidParams", "rust-echo: malformed params.value", e))?;
            w.map(1).str("value").map(1).str("value").raw(&msg[start..v.i]);
        }
        b"rust-add" => {
            let get = |k: &str| -> Result<i64, (&'static str, &'static str, &'static str)> {
                let mut f = (R { b: msg, i: params.i })
                    .field(k)
                    .ok()
                    .flatten()
                    .ok_or(("InvalidParams", "rust-add: params a and b are required", ""))?;
                f.int().map_err(|e| ("InvalidParams", "rust-add: a and b must be integers", e))
            };
            let (a, b) = (get("a")?, get("b")?);
            let sum = a.checked_add(b).ok_or(("InvalidParams", "rust-add: a+b overflows a 64-bit integer", ""))?;
            w.map(1).str("value").map(1).str("sum").int(sum);
        }
        _ => return Err(("NotFound", "rust-echo: unknown tool", "")),
    }
    *out = w.0;
    Ok(pack(out))
}

#[no_mangle]
pub extern "C" fn aios_call(ptr: u32, len: u32) -> u64 {
    unsafe {
        if !LOGGED {
            LOGGED = true;
            let m = "rust-echo: first call on this instance (MessagePack ABI)";
            log(0, m.as_ptr(), m.len() as u32);
        }
    }
    let msg: &[u8] = if len == 0 { &[] } else { unsafe { std::slice::from_raw_parts(ptr as *const u8, len as usize) } };
    match serve(msg) {
        Ok(p) => p,
        Err((code, m, detail)) => error(code, m, detail),
    }
}
