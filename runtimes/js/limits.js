// Replaces the constructors that allocate in one native step (Array,
// ArrayBuffer, SharedArrayBuffer, the typed arrays) by functions that first
// ask check(name, args) — limits.go, which throws a RangeError when the
// size asked for is over the provider's memory budget — and then construct
// the original (or call it, for Array(n)). This part is JS because it needs
// new.target: the replacement shares the original's prototype object, so
// instanceof and subclassing keep working, and inherits its static methods
// (from, of, isArray, BYTES_PER_ELEMENT, Symbol.species). Each prototype's
// "constructor" then names the replacement, so the original cannot be
// reached through an instance. (A Proxy would be simpler, but goja's
// instanceof refuses a Proxy on its right-hand side.)
(function (check, names) {
  'use strict';
  var defineProperty = Object.defineProperty;
  var rApply = Reflect.apply;
  var rConstruct = Reflect.construct;
  names.forEach(function (name) {
    var C = globalThis[name];
    if (typeof C !== 'function') return;
    var F = function (...args) {
      check(name, args);
      if (new.target === undefined) return rApply(C, undefined, args);
      return rConstruct(C, args, new.target === F ? C : new.target);
    };
    Object.setPrototypeOf(F, C);
    defineProperty(F, 'prototype', { value: C.prototype, writable: false, enumerable: false, configurable: false });
    defineProperty(F, 'name', { value: C.name, configurable: true });
    defineProperty(F, 'length', { value: C.length, configurable: true });
    defineProperty(C.prototype, 'constructor', { value: F, writable: true, enumerable: false, configurable: true });
    defineProperty(globalThis, name, { value: F, writable: true, enumerable: false, configurable: true });
  });
})
