// Size limits on the constructors that allocate in one native step (the
// methods are wrapped in Go: limits.go, where the check costs far less than
// a JS wrapper). It runs once in every goja runtime, before the SDK
// prelude, and returns a function that sets the limit (the provider's
// memory budget in bytes).
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
// docs/js.md ("Sandbox").
(function () {
  'use strict';
  var maxBytes = 256 * 1048576;
  var maxElems = maxBytes / 16; // an array slot is a 16-byte interface value

  var defineProperty = Object.defineProperty;
  var rApply = Reflect.apply;
  var rConstruct = Reflect.construct;
  var OrigArrayBuffer = ArrayBuffer;

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
    var F = function (...args) {
      check(args);
      if (new.target === undefined) return rApply(C, undefined, args);
      return rConstruct(C, args, new.target === F ? C : new.target);
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
    maxElems = b / 16;
  };
})
