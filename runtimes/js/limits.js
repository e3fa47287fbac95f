// Size limits on the built-ins that allocate in one native step. It runs
// once in every goja runtime, before the SDK prelude, and returns a
// function that sets the limit (the provider's memory budget in bytes).
//
// Why: the memory guard (guard.go) samples the heap and interrupts the JS
// code, but goja checks interrupts only between JS instructions. A built-in
// asked for a huge result — 'x'.repeat(2 ** 36), new ArrayBuffer(2 ** 38),
// new Array(2 ** 31).fill(0) — allocates it inside one native call, and an
// allocation larger than the machine's memory is a fatal error that ends
// the whole host process, not a panic anything can recover. These wrappers
// compute the size a call would allocate from its arguments (and from the
// array's length) and throw a RangeError before it starts when that size
// is over the budget. The error reaches the caller as the handler's
// exception (ProviderError). What they cannot see is documented in
// docs/js.md ("Sandbox"). countOf(s, sep) is a Go function: how many
// times sep occurs in s (strings.Count).
(function (countOf) {
  'use strict';
  var maxBytes = 256 * 1048576;
  var maxChars = maxBytes / 2; // a string's characters are 2 bytes at worst
  var maxElems = maxBytes / 16; // an array slot is a 16-byte interface value

  var defineProperty = Object.defineProperty;
  var getOwn = Object.getOwnPropertyDescriptor;
  var rApply = Reflect.apply;
  var rConstruct = Reflect.construct;
  var isArray = Array.isArray;
  var OrigArrayBuffer = ArrayBuffer;
  var iteratorSym = Symbol.iterator;

  function over(what, n, unit, max) {
    throw new RangeError(what + ' of ' + n + ' ' + unit + ' is over the limit of ' + Math.floor(max) + ' ' + unit +
      " set by the provider's memory budget (" + Math.round(maxBytes / 1048576) + ' MiB)');
  }

  // count is ToLength for sizes: NaN, negative and non-numbers count 0.
  function count(v) {
    if (typeof v === 'bigint') return 0; // the built-in throws its own TypeError
    var n = Number(v);
    if (!(n > 0)) return 0;
    return n === Infinity ? Infinity : Math.floor(n);
  }

  // lengthOf is the length a generic array method sees on its receiver.
  function lengthOf(o) {
    if (o === null || o === undefined) return 0; // the built-in throws
    return count(Object(o).length);
  }

  // wrap replaces obj[name] with a method that runs check(this, args)
  // before the original. The replacement keeps the original's name, length
  // and property attributes, and is not a constructor (as built-in methods
  // are not).
  function wrap(obj, name, check) {
    var d = getOwn(obj, name);
    var orig = d.value;
    var f = {
      [name]() {
        check(this, arguments);
        return rApply(orig, this, arguments);
      },
    }[name];
    defineProperty(f, 'length', { value: orig.length, configurable: true });
    defineProperty(obj, name, { value: f, writable: d.writable, enumerable: d.enumerable, configurable: d.configurable });
    return f;
  }

  // Strings.
  var SP = String.prototype;
  wrap(SP, 'repeat', function (s, a) {
    if (s === null || s === undefined) return;
    var n = String(s).length * count(a[0]);
    if (n > maxChars) over('a string', n, 'characters', maxChars);
  });
  ['padStart', 'padEnd'].forEach(function (name) {
    wrap(SP, name, function (s, a) {
      var n = count(a[0]);
      if (n > maxChars) over('a string', n, 'characters', maxChars);
    });
  });

  // split: as many strings as separators (each a 16-byte slot plus its
  // header). Counted exactly (in Go) only when the string is long enough to
  // matter; a RegExp separator is not sized.
  wrap(SP, 'split', function (s, a) {
    var sep = a[0];
    if (s === null || s === undefined || typeof sep !== 'string') return;
    var str = String(s);
    var lim = a[1] === undefined ? Infinity : a[1] >>> 0;
    var parts = sep.length === 0 ? str.length : str.length / sep.length + 1;
    if (Math.min(parts, lim) <= maxElems) return;
    if (sep.length > 0) parts = countOf(str, sep) + 1;
    if (Math.min(parts, lim) > maxElems) over('an array', parts, 'elements', maxElems);
  });

  // Arrays: the methods that build a result (or an iterator) sized by the
  // receiver's length, in a native loop the interrupt does not reach.
  var AP = Array.prototype;
  function checkLength(o) {
    var n = lengthOf(o);
    if (n > maxElems) over('an array', n, 'elements', maxElems);
    return n;
  }
  ['copyWithin', 'entries', 'fill', 'flat', 'flatMap', 'keys', 'map', 'reverse', 'slice', 'sort', 'splice',
    'toLocaleString', 'toReversed', 'toSorted', 'toSpliced', 'with'].forEach(function (name) {
    if (typeof AP[name] === 'function') wrap(AP, name, checkLength);
  });
  var values = wrap(AP, 'values', checkLength);
  if (AP[iteratorSym] !== values) {
    defineProperty(AP, iteratorSym, { value: values, writable: true, enumerable: false, configurable: true });
  }
  function checkJoin(o, sep) {
    var n = checkLength(o);
    var s = sep === undefined ? 1 : String(sep).length;
    if (n > 1 && (n - 1) * s > maxChars) over('a string', (n - 1) * s, 'characters', maxChars);
  }
  wrap(AP, 'join', function (o, a) { checkJoin(o, a[0]); });
  wrap(AP, 'toString', function (o) { if (isArray(o)) checkJoin(o, ','); });
  wrap(AP, 'concat', function (o, a) {
    var n = lengthOf(o);
    for (var i = 0; i < a.length; i++) n += isArray(a[i]) ? lengthOf(a[i]) : 1;
    if (n > maxElems) over('an array', n, 'elements', maxElems);
  });

  // An argument list is an array too: f.apply(x, {length: 2 ** 32}) builds
  // it in one step.
  function checkArgs(list) {
    if (list !== null && typeof list === 'object') {
      var n = lengthOf(list);
      if (n > maxElems) over('an argument list', n, 'elements', maxElems);
    }
  }
  wrap(Function.prototype, 'apply', function (f, a) { checkArgs(a[1]); });
  wrap(Reflect, 'apply', function (r, a) { checkArgs(a[2]); });
  wrap(Reflect, 'construct', function (r, a) { checkArgs(a[1]); });

  // Array.from(arrayLike): sized by its length when it is not iterable
  // (iterables: array iterators are checked above, a generator is JS).
  wrap(Array, 'from', function (c, a) {
    var src = a[0];
    if (src !== null && src !== undefined && src[iteratorSym] === undefined) {
      var n = lengthOf(src);
      if (n > maxElems) over('an array', n, 'elements', maxElems);
    }
  });

  // Constructors are replaced by functions that check the size and then
  // construct the original (or call it, for Array(n)). The replacement
  // shares the original's prototype object, so instanceof and subclassing
  // keep working, and inherits its static methods (from, of, isArray,
  // BYTES_PER_ELEMENT, Symbol.species). Each prototype's "constructor" then
  // names the replacement, so the original cannot be reached through an
  // instance. (A Proxy would be simpler, but goja's instanceof refuses a
  // Proxy on its right-hand side.)
  function guardCtor(name, check) {
    var C = globalThis[name];
    if (typeof C !== 'function') return;
    var F = function () {
      check(arguments);
      if (new.target === undefined) return rApply(C, undefined, arguments);
      return rConstruct(C, arguments, new.target === F ? C : new.target);
    };
    Object.setPrototypeOf(F, C);
    defineProperty(F, 'prototype', { value: C.prototype, writable: false, enumerable: false, configurable: false });
    defineProperty(F, 'name', { value: C.name, configurable: true });
    defineProperty(F, 'length', { value: C.length, configurable: true });
    defineProperty(C.prototype, 'constructor', { value: F, writable: true, enumerable: false, configurable: true });
    defineProperty(globalThis, name, { value: F, writable: true, enumerable: false, configurable: true });
  }
  guardCtor('Array', function (args) {
    if (args.length === 1 && typeof args[0] === 'number' && args[0] > maxElems) {
      over('an array', args[0], 'elements', maxElems);
    }
  });
  function bytes(n) {
    if (n > maxBytes) over('a buffer', n, 'bytes', maxBytes);
  }
  guardCtor('ArrayBuffer', function (args) { bytes(count(args[0])); });
  guardCtor('SharedArrayBuffer', function (args) { bytes(count(args[0])); });
  ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
    'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array'].forEach(function (name) {
    var C = globalThis[name];
    if (typeof C !== 'function') return;
    var size = C.BYTES_PER_ELEMENT;
    guardCtor(name, function (args) {
      var a0 = args[0];
      if (a0 === null || typeof a0 !== 'object') {
        bytes(count(a0) * size);
      } else if (!(a0 instanceof OrigArrayBuffer)) {
        bytes(lengthOf(a0) * size); // an array-like or an array: copied element by element
      }
    });
  });

  return function setLimit(b) {
    maxBytes = b;
    maxChars = b / 2;
    maxElems = b / 16;
  };
})
