// Replaces the constructors that allocate in one native step (Array,
// ArrayBuffer, SharedArrayBuffer, the typed arrays) and RegExp by functions
// that first ask check(name, args) — limits.go, which throws a RangeError
// when the size asked for is over the provider's memory budget, or a
// SyntaxError for a regular expression goja would get wrong — and then construct
// the original (or call it, for Array(n)). This part is JS because it needs
// new.target: the replacement shares the original's prototype object, so
// instanceof and subclassing keep working, and inherits its static methods
// (from, of, isArray, BYTES_PER_ELEMENT, Symbol.species: copied, with the
// original's own [[Prototype]], not inherited from the original, which
// Object.getPrototypeOf would then hand out). Each prototype's
// "constructor" then names the replacement, so the original cannot be
// reached through an instance. (A Proxy would be simpler, but goja's
// instanceof refuses a Proxy on its right-hand side.)
(function (check, names, checkSource) {
  'use strict';
  var defineProperty = Object.defineProperty;
  var rApply = Reflect.apply;
  var rConstruct = Reflect.construct;
  names.forEach(function (name) {
    var C = globalThis[name];
    if (typeof C !== 'function') return;
    var isRE = name === 'RegExp';
    var F = function (...args) {
      if (!isRE || reNeedsCheck(args)) check(name, args);
      if (new.target === undefined) return rApply(C, undefined, args);
      return rConstruct(C, args, new.target === F ? C : new.target);
    };
    Object.setPrototypeOf(F, Object.getPrototypeOf(C));
    Reflect.ownKeys(C).forEach(function (k) {
      if (k !== 'prototype' && k !== 'name' && k !== 'length') {
        defineProperty(F, k, Object.getOwnPropertyDescriptor(C, k));
      }
    });
    defineProperty(F, 'prototype', { value: C.prototype, writable: false, enumerable: false, configurable: false });
    defineProperty(F, 'name', { value: C.name, configurable: true });
    defineProperty(F, 'length', { value: C.length, configurable: true });
    if (isRE) {
      // The species of a RegExp is the original (a subclass's, itself):
      // split, matchAll and replace build their matchers by it, and
      // goja takes its fast path only for the original constructor.
      defineProperty(F, Symbol.species, { get: function () { return this === F ? C : this; }, configurable: true });
    }
    defineProperty(C.prototype, 'constructor', { value: F, writable: true, enumerable: false, configurable: true });
    defineProperty(globalThis, name, { value: F, writable: true, enumerable: false, configurable: true });
  });
  // A RegExp is checked (limits.go's checkRegExp) only when its flags
  // may hold u or v: flags as a string that does, or none given with a
  // pattern that is an object (a RegExp, whose flags count).
  function reNeedsCheck(args) {
    var f = args[1];
    if (typeof f === 'string') return f.indexOf('u') >= 0 || f.indexOf('v') >= 0;
    return f === undefined && args[0] !== null && typeof args[0] === 'object';
  }
  // The compilers: eval and the Function, AsyncFunction and
  // GeneratorFunction constructors (goja has no async generators) parse source with goja's
  // parser, whose recursion a deeply nested string can take past the
  // stack limit, a fatal error of the process. checkSource refuses source
  // over a size at which that cannot happen. The arguments are converted
  // to strings once, here (ToString, as the constructor would), and the
  // array of them checkSource returns is what the original compiles. eval becomes
  // indirect (global scope), as any eval through a replacement is.
  var origEval = globalThis.eval;
  var E = function (x) {
    if (typeof x === 'string') checkSource('eval', [x]);
    return origEval(x);
  };
  defineProperty(E, 'name', { value: 'eval', configurable: true });
  defineProperty(globalThis, 'eval', { value: E, writable: true, enumerable: false, configurable: true });
  var getProto = Object.getPrototypeOf;
  [Function, getProto(async function () {}).constructor, getProto(function* () {}).constructor].forEach(function (C) {
    var F = function (...args) {
      // args is this function's own rest array: a plain loop converts
      // its elements in place, calling nothing the provider can replace
      // (args.map could be).
      for (var i = 0; i < args.length; i++) args[i] = `${args[i]}`;
      args = checkSource('Function', args);
      return rConstruct(C, args, new.target === undefined || new.target === F ? C : new.target);
    };
    defineProperty(F, 'prototype', { value: C.prototype, writable: false, enumerable: false, configurable: false });
    defineProperty(F, 'name', { value: C.name, configurable: true });
    defineProperty(F, 'length', { value: C.length, configurable: true });
    defineProperty(C.prototype, 'constructor', { value: F, writable: true, enumerable: false, configurable: true });
    if (C === Function) {
      defineProperty(globalThis, 'Function', { value: F, writable: true, enumerable: false, configurable: true });
    }
  });
})
