// The aios SDK prelude. It runs once in every goja runtime before the
// provider's bundle and defines the `aios` global (registerTool, provider,
// tool, Agent, Capability, ToolError), `console`, `queueMicrotask`, and the
// per-runtime `ctx` object handed to handlers. `native` holds the Go host
// functions; it never escapes this closure.
(function (native) {
  'use strict';
  var tools = [];
  var byName = Object.create(null);
  var pending = [];
  var info = null;

  // Symbol.asyncIterator (ES2018, in aios-sdk.d.ts's lib), which goja
  // lacks: an object or class made async-iterable with it got the key
  // "undefined", and for await over it failed "Object has no member
  // 'Symbol.iterator'" (esbuild's lowered for await and async generators
  // read Symbol.asyncIterator when they run, so they use this one).
  if (typeof Symbol.asyncIterator !== 'symbol') {
    Object.defineProperty(Symbol, 'asyncIterator', { value: Symbol('Symbol.asyncIterator'), writable: false, enumerable: false, configurable: false });
  }
  // Symbol.dispose and Symbol.asyncDispose, for TypeScript's `using` and
  // `await using` (esbuild's lowered helpers read them when they run):
  // without them [Symbol.dispose]() was stored under the key "undefined"
  // and every `using` failed "Object not disposable"
  // (TestUsingDeclarationsDispose).
  ['dispose', 'asyncDispose'].forEach(function (n) {
    if (typeof Symbol[n] !== 'symbol') {
      Object.defineProperty(Symbol, n, { value: Symbol('Symbol.' + n), writable: false, enumerable: false, configurable: false });
    }
  });

  // ToolError's own properties are defined, not assigned: a provider that
  // froze Error.prototype (lockdown-style hardening, in any call of the
  // runtime) made this.name = … throw "Cannot assign to read only property
  // 'name'" (strict code), so it could make no ToolError and host refusals
  // became plain Errors. defineProperty is the one the prelude found.
  var defineProperty = Object.defineProperty;
  function own(o, k, v) {
    defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  }
  class ToolError extends Error {
    constructor(code, message, data) {
      // A message that is no string (new ToolError(code, {id: 3}), the
      // details meant as data) read "[object Object]" in the tool's error.
      if (message !== undefined && typeof message !== 'string') {
        throw new TypeError('new ToolError(code, message, data): the message must be a string, got ' +
          (message === null ? 'null' : Array.isArray(message) ? 'an array' : (/^[aeiou]/.test(typeof message) ? 'an ' : 'a ') + typeof message) +
          '; give details as data: new ToolError(' + JSON.stringify(String(code)) + ', \'what went wrong\', {...})');
      }
      super(message);
      own(this, 'name', 'ToolError');
      own(this, 'code', code);
      if (data !== undefined) own(this, 'data', data);
    }
  }

  // A constant for every code of the ABI (abi.KnownCodes), as the Python
  // SDK's: e.code === ToolError.RateLimited, new ToolError(ToolError.NotFound, …).
  ['InvalidParams', 'NotFound', 'CapabilityDenied', 'RateLimited', 'Timeout', 'ProviderError',
    'ProviderCrashed', 'Unavailable', 'Internal', 'InvalidResult', 'Conflict', 'InvalidRequest',
    'Cancelled', 'DepthExceeded', 'TooLarge'].forEach(function (c) {
    Object.defineProperty(ToolError, c, { value: c, enumerable: true, writable: false, configurable: false });
  });

  // capOf checks a Capability helper's argument as the Python SDK's _cap
  // does: Capability.ReadSpace() (the space forgotten) made
  // "ReadSpace(undefined)", a grant of a space named undefined, and an
  // array "ReadSpace(a,b)", both loaded without a word.
  function capOf(kind, arg) {
    if (typeof arg !== 'string' || !/^[^()\s]+$/.test(arg)) {
      var shown = typeof arg === 'string' ? JSON.stringify(arg.length > 64 ? arg.slice(0, 64) + '…' : arg)
        : arg === undefined || arg === null ? String(arg) : (/^[aeiou]/.test(typeof arg) ? 'an ' : 'a ') + typeof arg;
      throw new TypeError('Capability.' + kind + '(' + shown + '): the argument must be a non-empty string without ' +
        "parentheses or white space, e.g. Capability." + kind + "('documents')");
    }
    return kind + '(' + arg + ')';
  }
  var Capability = Object.freeze({
    ReadSpace: function (s) { return capOf('ReadSpace', s); },
    WriteSpace: function (s) { return capOf('WriteSpace', s); },
    Network: function (h) { return capOf('Network', h); },
    CallTool: function (p) { return capOf('CallTool', p); },
    Inference: 'Inference',
  });

  function capList(v, where) {
    if (v === undefined || v === null) return [];
    var a = Array.isArray(v) ? v : [v];
    return a.map(function (c) {
      if (typeof c !== 'string') {
        throw new TypeError(where + ': capability ' + String(c) +
          ' is not a string (use Capability.ReadSpace("name"), Capability.Inference, ...)');
      }
      return c;
    });
  }

  // toSchema accepts either a whole JSON Schema (it has a string "type" or
  // "$schema", or a "properties" object, as the Python SDK decides) or the
  // seed's shorthand: a map of property schemas. In the shorthand a
  // property is required unless it has a "default" or "optional: true" (the
  // "optional" key is removed). A whole schema without "type" gets
  // type "object", as in Python.
  // SCHEMA_KEYWORDS are the JSON Schema keywords whose values are not
  // schemas; the same list as the Python, native and Go guest SDKs'.
  var SCHEMA_KEYWORDS = Object.create(null);
  ["type", "$ref", "$id", "$anchor", "$comment", "$dynamicRef", "enum", "const", "anyOf", "oneOf", "allOf", "prefixItems", "required", "format", "pattern", "title", "description", "default", "examples", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties", "dependentRequired", "nullable", "readOnly", "writeOnly", "deprecated"].forEach(function (k) { SCHEMA_KEYWORDS[k] = true; });

  // isSchemaMap: whether v is a "properties" map of schemas (objects or
  // booleans). One holding another value ({type: 'object'}) is the schema
  // of a parameter named properties, in the shorthand (it failed the load:
  // "at /properties/type: got string, want boolean or object").
  function isSchemaMap(v) {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
    return Object.keys(v).every(function (k) {
      var s = v[k];
      return typeof s === 'boolean' || (s !== null && typeof s === 'object' && !Array.isArray(s));
    });
  }

  // SUBSCHEMA_KEYWORDS are the JSON Schema keywords whose values are
  // schemas, or maps of them, and $schema: the Python SDK's list.
  var SUBSCHEMA_KEYWORDS = Object.create(null);
  ["items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema", "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies", "$schema", "$vocabulary"].forEach(function (k) { SUBSCHEMA_KEYWORDS[k] = true; });

  // refuseMixed: a keyword schema whose other members are property
  // schemas is the shorthand with a keyword written beside it, {query:
  // {...}, required: ['query']}: taken as a whole schema it had no
  // properties, and any params reached the handler (the Python SDK
  // refuses it so: TestShorthandMixedWithKeywordRefused).
  function refuseMixed(p, kw, where, what) {
    var props = Object.keys(p).filter(function (k) {
      var s = p[k];
      return s !== null && typeof s === 'object' && !Array.isArray(s) && SCHEMA_KEYWORDS[k] !== true && SUBSCHEMA_KEYWORDS[k] !== true;
    }).sort(codePointOrder);
    if (!props.length) return;
    throw new TypeError(where + ': ' + what + ' mixes property schemas (' + props.join(', ') + ') with the schema keyword "' + kw +
      '": write a whole schema, { type: "object", properties: {...}, ' + kw + ': ... }, or the property schemas alone' +
      ' (a property is required unless it has a default or optional: true)');
  }

  function toSchema(p, where, what) {
    what = what || 'parameters';
    if (p === undefined || p === null) return { type: 'object' };
    if (typeof p !== 'object' || Array.isArray(p)) {
      throw new TypeError(where + ': ' + what + ' must be an object (a JSON Schema or a map of property schemas)');
    }
    if (typeof p.type === 'string') return p;
    if (typeof p.$schema === 'string' || isSchemaMap(p.properties)) {
      // (a type that is not a string, ['object', 'null'], is kept, as by
      // the Python, native and Go guest SDKs)
      var full = { type: 'object' };
      Object.keys(p).forEach(function (k) { full[k] = p[k]; });
      return full;
    }
    // A keyword whose value is not a schema ({enum: [...]}, {anyOf:
    // [...]}, {$ref: '...'}) makes a whole schema without a type, which a
    // shorthand (all values schemas) cannot be: used as given, as by the
    // Python, native and Go guest SDKs.
    var keys = Object.keys(p);
    for (var i = 0; i < keys.length; i++) {
      var v = p[keys[i]];
      if (SCHEMA_KEYWORDS[keys[i]] === true && (v === null || typeof v !== 'object' || Array.isArray(v))) {
        refuseMixed(p, keys[i], where, what);
        if (what !== 'parameters' || p.type !== undefined) return p;
        // Params are an object: without a type, {anyOf: [{required:
        // ['x']}, ...]} took any value, a caller's "hello" reaching the
        // handler (TestKeywordParamsSchemaTakesObjects).
        var typed = { type: 'object' };
        Object.keys(p).forEach(function (k) { typed[k] = p[k]; });
        return typed;
      }
    }
    var properties = {};
    var required = [];
    Object.keys(p).forEach(function (k) {
      var s = p[k];
      if (s === null || typeof s !== 'object' || Array.isArray(s)) {
        throw new TypeError(where + ': ' + what + '.' + k + ' must be a JSON Schema object such as { type: "string" }');
      }
      var copy = {};
      Object.keys(s).forEach(function (sk) { if (sk !== 'optional') copy[sk] = s[sk]; });
      properties[k] = copy;
      if (s.optional !== true && !('default' in s)) required.push(k);
    });
    var schema = { type: 'object', properties: properties };
    // Sorted by code point, as the Go and Python SDKs sort them: the same
    // parameters give the same schema in every runtime (seed 000 §9.1).
    if (required.length) schema.required = required.sort(codePointOrder);
    return schema;
  }

  // codePointOrder compares two strings by Unicode code point (the order
  // of Go's sort.Strings and Python's sorted), not by UTF-16 code unit.
  function codePointOrder(a, b) {
    var i = 0, j = 0;
    while (i < a.length && j < b.length) {
      var x = a.codePointAt(i), y = b.codePointAt(j);
      if (x !== y) return x < y ? -1 : 1;
      i += x > 0xffff ? 2 : 1;
      j += y > 0xffff ? 2 : 1;
    }
    return i < a.length ? 1 : (j < b.length ? -1 : 0);
  }

  function pick(def, out, from, to) {
    if (def[from] !== undefined) out[to] = def[from];
  }

  // defKeys are the members a tool definition may have (aios-sdk.d.ts,
  // AiosToolDefinition, and their snake_case spellings): a misspelled one
  // (paramaters) would otherwise leave the tool without a schema, silently.
  var defKeys = ['name', 'description', 'parameters', 'returns', 'version', 'tags', 'examples',
    'idempotent', 'deprecated', 'latencyClass', 'latency_class', 'permissionLevel', 'permission_level',
    'mcpExportable', 'mcp_exportable', 'capabilityRequired', 'capability_required', 'deprecation'];
  // deprecationKeys are a deprecation note's members (abi.Deprecation).
  var deprecationKeys = ['since', 'message', 'replacement'];

  function closest(k, keys) {
    var lk = k.toLowerCase(), best = '', bestD = 3;
    keys.forEach(function (c) {
      var d = editDistance(lk, c.toLowerCase());
      if (d < bestD) { bestD = d; best = c; }
    });
    return best;
  }

  function editDistance(a, b) {
    var prev = [], cur = [], i, j;
    for (j = 0; j <= b.length; j++) prev[j] = j;
    for (i = 1; i <= a.length; i++) {
      cur = [i];
      for (j = 1; j <= b.length; j++) {
        cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      }
      prev = cur;
    }
    return prev[b.length];
  }

  // What strict SemVer (the registry's semver.StrictNewVersion) refuses:
  // no MAJOR.MINOR.PATCH, a leading zero, a "v" prefix, an empty or
  // malformed pre-release or build ("1.0.0-", "1.0.0-01", "1.0.0+a..b",
  // which passed here to be refused by the registry naming no line); checked
  // here so that the error names the line declaring the version, as the
  // Python SDK's does (a provider's version, which its tools declaring none
  // take, was blamed on a tool by the registry, naming the file alone).
  function checkVersion(v, where) {
    if (v !== '' && !/^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*))*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/.test(v)) {
      throw new TypeError(where + ': version ' + JSON.stringify(v.length > 140 ? v.slice(0, 140) + '…' : v) +
        ' is not a strict SemVer version (want MAJOR.MINOR.PATCH such as 1.2.0)');
    }
  }

  // checkWord refuses a string member (either spelling) of def that is not
  // one of words (abi.Permission*, abi.Latency*).
  function checkWord(def, camel, snake, words, where) {
    [camel, snake].forEach(function (k) {
      var v = def[k];
      if (typeof v === 'string' && v !== '' && words.indexOf(v) < 0) {
        throw new TypeError(where + ' ' + def.name + ': ' + k + ' ' + JSON.stringify(v.length > 140 ? v.slice(0, 140) + '…' : v) +
          ' is not one of ' + words.join(', '));
      }
    });
  }

  function normDef(def, where) {
    if (def === null || typeof def !== 'object') throw new TypeError(where + ': the tool definition must be an object');
    if (typeof def.name !== 'string' || def.name === '') throw new TypeError(where + ': the tool definition needs a string name');
    // abi.ToolNamePattern, checked here so that the error names this line.
    if (!/^[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}$/.test(def.name)) {
      throw new TypeError(where + ': invalid tool name ' + JSON.stringify(def.name.length > 140 ? def.name.slice(0, 140) + '…' : def.name) +
        ': use 1-128 characters from A-Z a-z 0-9 _ - . starting with a letter or digit');
    }
    Object.keys(def).forEach(function (k) {
      if (defKeys.indexOf(k) >= 0) return;
      var near = k.length <= 64 ? closest(k, defKeys) : '';
      throw new TypeError(where + ' ' + def.name + ': unknown member "' + k + '" in the tool definition' +
        (near ? ' (did you mean ' + near + '?)' : '') + '; known: ' + defKeys.join(', '));
    });
    var out = { name: def.name, parameters: toSchema(def.parameters, where + ' ' + def.name) };
    pick(def, out, 'description', 'description');
    // returns takes the shorthand too, as in Python (the same declared
    // returns validates results the same way in both).
    if (def.returns !== undefined && def.returns !== null) out.returns = toSchema(def.returns, where + ' ' + def.name, 'returns');
    pick(def, out, 'version', 'version');
    if (typeof out.version === 'string') checkVersion(out.version, where + ' ' + def.name);
    pick(def, out, 'tags', 'tags');
    pick(def, out, 'examples', 'examples');
    pick(def, out, 'idempotent', 'idempotent');
    pick(def, out, 'deprecated', 'deprecated');
    // {since, message, replacement}, as the Go SDKs' Deprecation: the host
    // returns it to callers (docs/registry.md); present, it sets deprecated.
    if (def.deprecation !== undefined && def.deprecation !== null) {
      // Its members are checked as the definition's: a misspelt one
      // (replacment) was dropped, and callers were told the tool is
      // deprecated with nothing of what replaces it.
      if (typeof def.deprecation === 'object' && !Array.isArray(def.deprecation)) {
        Object.keys(def.deprecation).forEach(function (k) {
          if (deprecationKeys.indexOf(k) >= 0) return;
          var near = k.length <= 64 ? closest(k, deprecationKeys) : '';
          throw new TypeError(where + ' ' + def.name + ': unknown member "' + k + '" in deprecation' +
            (near ? ' (did you mean ' + near + '?)' : '') + '; known: ' + deprecationKeys.join(', '));
        });
      }
      out.deprecation = def.deprecation;
      out.deprecated = true;
    }
    pick(def, out, 'latencyClass', 'latency_class');
    pick(def, out, 'latency_class', 'latency_class');
    pick(def, out, 'permissionLevel', 'permission_level');
    pick(def, out, 'permission_level', 'permission_level');
    // Checked here, as the Python SDK does, so that the error names the
    // declaring line (the registry's named the file alone); '' is the default.
    checkWord(def, 'permissionLevel', 'permission_level', ['public', 'low', 'medium', 'high', 'critical'], where);
    checkWord(def, 'latencyClass', 'latency_class', ['fast', 'normal', 'slow'], where);
    pick(def, out, 'mcpExportable', 'mcp_exportable');
    pick(def, out, 'mcp_exportable', 'mcp_exportable');
    var caps = capList(def.capabilityRequired !== undefined ? def.capabilityRequired : def.capability_required, where + ' ' + def.name);
    if (caps.length) out.capability_required = caps;
    return out;
  }

  // notInCall refuses to describe the provider from a tool call: the
  // host reads the tools and the provider's description once, after the
  // top-level code ran, so aios.registerTool (or a class with @Agent)
  // in a handler registered nothing, without a word.
  function notInCall(where) {
    if (native.inCall()) {
      throw new Error(where + ': tools and the provider are declared by the file\'s top-level code, which the host runs at load; ' +
        'called during a tool call this declares nothing (register every tool at the top level)');
    }
  }

  function add(def, fn, self, where) {
    notInCall(where);
    var d = normDef(def, where);
    if (typeof fn !== 'function') throw new TypeError(where + ' ' + d.name + ': the handler is not a function');
    var site = native.site();
    // The first declaration's line is named too: only the second's was.
    if (byName[d.name]) {
      throw new Error('duplicate tool name "' + d.name + '" (' + where + '): every tool of a provider needs its own name' +
        (byName[d.name] !== true ? '; the first is declared at ' + byName[d.name] : ''));
    }
    byName[d.name] = site || true;
    tools.push({ def: d, fn: fn, self: self, site: site });
  }

  // describedBy names what described the provider (an aios.provider call or
  // an @Agent class): a file describes its provider once, as in the Python
  // and Go guest SDKs. A second description is a load error naming both
  // (it used to be merged, the first id and version winning silently).
  var describedBy = null;

  var providerKeys = ['id', 'name', 'version', 'description', 'capabilities'];

  function setInfo(opts, where) {
    notInCall(where);
    if (describedBy !== null) {
      throw new Error(where + ': the provider is already described by ' + describedBy +
        '; a file describes its provider once (one aios.provider(...) or one @Agent class)');
    }
    describedBy = where;
    if (opts === undefined || opts === null) return;
    if (typeof opts !== 'object') throw new TypeError(where + ': options must be an object');
    // A misspelt option (capabilites) left the provider asking for nothing.
    Object.keys(opts).forEach(function (k) {
      if (providerKeys.indexOf(k) >= 0) return;
      var near = k.length <= 64 ? closest(k, providerKeys) : '';
      throw new TypeError(where + ': unknown option "' + k + '"' +
        (near ? ' (did you mean ' + near + '?)' : '') + '; known: ' + providerKeys.join(', '));
    });
    var caps = capList(opts.capabilities, where);
    // site: the line describing the provider, named by the host's checks
    // of its id, version and capabilities (TestProviderOptionErrorsNameLine).
    info = { site: native.site() };
    ['id', 'name', 'version', 'description'].forEach(function (k) {
      if (opts[k] === undefined || opts[k] === null) return;
      // String(...) made a description of { text: '…' } "[object Object]"
      // and an id of 5 "5", without a word (the Python SDK's and the
      // host's decoding refuse them).
      if (typeof opts[k] !== 'string') {
        throw new TypeError(where + ': option ' + k + ' must be a string, got ' +
          (Array.isArray(opts[k]) ? 'an array' : (/^[aeiou]/.test(typeof opts[k]) ? 'an ' : 'a ') + typeof opts[k]));
      }
      if (k === 'version') checkVersion(opts[k], where);
      info[k] = opts[k];
    });
    info.capabilities = caps;
  }

  function registerTool(def, handler) { add(def, handler, undefined, 'aios.registerTool'); }
  function provider(opts) { setInfo(opts, 'aios.provider(...)'); }

  // tool works as a TC39 standard method decorator (method, context) and as
  // a TypeScript experimentalDecorators one (prototype, key, descriptor).
  // Written without parentheses (@tool, as Python's bare @tool) it is the
  // decorator itself: called with a method and its context, or with a
  // prototype, a key and a descriptor, where options are one object.
  function tool(opts) {
    if (arguments.length > 1 || typeof opts === 'function') {
      return tool(undefined).apply(this, arguments);
    }
    // @tool('summarize') (Python's @tool takes the name first) failed
    // 'unknown member "0" in the tool definition': the string was spread
    // into the definition a character a member.
    if (opts !== undefined && opts !== null && (typeof opts !== 'object' || Array.isArray(opts))) {
      var got = typeof opts === 'string' ? 'the string ' + JSON.stringify(opts.length > 64 ? opts.slice(0, 64) + '…' : opts) : (Array.isArray(opts) ? 'an array' : 'a ' + typeof opts);
      throw new TypeError('@tool takes its options as one object, @tool({ name: ' + (typeof opts === 'string' ? JSON.stringify(opts.slice(0, 64)) : "'…'") +
        ', parameters: {…} }) (or nothing: the name is the method\'s), got ' + got);
    }
    return function (target, key, desc) {
      if (key !== null && typeof key === 'object' && typeof key.kind === 'string') {
        if (key.kind !== 'method' || key.static || key.private) {
          throw new TypeError('@tool decorates public instance methods, not a ' +
            (key.static ? 'static ' : '') + (key.private ? 'private ' : '') + key.kind);
        }
        // The method's initializers run when an instance of its class is
        // made: @Agent's instance marks the methods that are its own.
        var entry = { opts: opts, fn: target, key: String(key.name), ran: false };
        if (typeof key.addInitializer === 'function') {
          key.addInitializer(function () { if (making !== null && this instanceof making) entry.ran = true; });
        }
        pending.push(entry);
        return;
      }
      if (typeof target === 'function') throw new TypeError('@tool decorates instance methods, not static ones (' + String(key) + ')');
      // A getter, setter or field (no descriptor) said "the handler is
      // not a function", after running the getter on the prototype: the
      // same words as in standard mode instead.
      if (desc === undefined || desc === null || typeof desc.get === 'function' || typeof desc.set === 'function') {
        throw new TypeError('@tool decorates public instance methods, not a ' +
          (desc ? (typeof desc.get === 'function' ? 'getter' : 'setter') : 'field') + ' (' + String(key) + ')');
      }
      var fn = typeof desc.value === 'function' ? desc.value : target[key];
      pending.push({ opts: opts, fn: fn, key: String(key), proto: target });
    };
  }

  // making is the class @Agent is making its instance of.
  var making = null;

  // Agent is a class decorator in both decorator modes. It takes the @tool
  // methods decorated so far, makes one instance of the class, and registers
  // each method bound to it.
  function Agent(opts) {
    // @Agent without parentheses: opts is the class (options are never a
    // function).
    if (typeof opts === 'function') return Agent(undefined).apply(this, arguments);
    return function (cls, context) {
      if (typeof cls !== 'function') throw new TypeError('@Agent decorates a class');
      var standard = context !== null && typeof context === 'object' && typeof context.kind === 'string';
      if (standard && context.kind !== 'class') throw new TypeError('@Agent decorates a class, not a ' + context.kind);
      var name = cls.name || 'anonymous class';
      setInfo(opts, '@Agent class ' + name);
      var taken = pending.splice(0, pending.length);
      if (taken.length === 0) throw new Error('@Agent class ' + name + ' has no @tool methods');
      var finish = function (c) {
        var inst;
        making = c;
        try { inst = new c(); } finally { making = null; }
        // @tool methods of a class without @Agent declared before this
        // one are pending too: they are not this instance's methods.
        taken.forEach(function (t) {
          if (t.proto !== undefined ? Object.prototype.isPrototypeOf.call(t.proto, inst) : t.ran) return;
          var owner = t.proto && t.proto.constructor && t.proto.constructor.name;
          throw new Error('@tool method ' + (owner ? owner + '.' : '') + t.key + ' is not a method of the @Agent class ' + name +
            ': its class needs @Agent({...}) of its own');
        });
        taken.forEach(function (t) {
          var def = Object.assign({}, t.opts || {});
          if (def.name === undefined) def.name = t.key;
          add(def, t.fn, inst, '@tool ' + name + '.' + t.key);
        });
      };
      if (standard && typeof context.addInitializer === 'function') {
        context.addInitializer(function () { finish(this); });
      } else {
        finish(cls);
      }
    };
  }

  // logValue is fmt's JSON.stringify replacer: a BigInt as 7n, and the
  // values whose JSON text is {} (a Map, a Set, a RegExp) by what they
  // hold, so that a log line does not lose it (TestLogShowsCollectionsAndCauses).
  var LogSet = Set, LogMap = Map, LogRegExp = RegExp, LogError = Error; // as the prelude found them
  function logValue(k, v) {
    if (typeof v === 'bigint') return v.toString() + 'n';
    // A method, as node shows it (JSON leaves it out: {f() {}} read {}).
    if (typeof v === 'function' && k !== '') return '[Function: ' + (v.name || 'anonymous') + ']';
    if (v instanceof LogSet) return Array.from(v);
    if (v instanceof LogMap) {
      var o = {};
      v.forEach(function (val, key) { o[typeof key === 'string' ? key : fmt([key])] = val; });
      return o;
    }
    if (v instanceof LogRegExp) return String(v);
    // An Error inside an object or array, as a top-level one is written:
    // its JSON text is {} (TestLogShowsNestedError).
    if (v instanceof LogError && k !== '') return errText(v, 0);
    return v;
  }

  // errText is an Error as a log line shows it: its stack (file:line:col
  // frames, without goja's program counters) and its causes after it, as
  // node prints them: the wrapped error was lost.
  function errText(a, depth) {
    try {
      var s = String(a.stack || a).replace(/(:\d+:\d+)\(\d+\)/g, '$1').replace(/\s+$/, '');
      var c = a.cause;
      if (c !== undefined && depth < 3) s += '\n[cause]: ' + (c instanceof Error ? errText(c, depth + 1) : fmt([c]));
      return s;
    } catch (e) {
      return '[an Error that could not be read]';
    }
  }

  // stringifyLog is JSON.stringify with logValue, written out so that a
  // log line costs what it shows: an object that holds itself
  // (o.self = o) is shown with "[Circular]" where it meets an object it is
  // inside of (it said "[object Object]"); one nested deeper than
  // LOG_DEPTH as "[Object]" or "[Array]", as node shows what is past its
  // depth; and the walk stops once LOG_TEXT characters are written, ending
  // in "…" (the whole value was written and then cut at the log's bound:
  // seconds of a call's time for an array of a million objects, and a
  // value nested 100 000 deep was walked all the way down).
  var LOG_DEPTH = 64, LOG_TEXT = 60 << 10; // below the line's bound (maxLogLine, 64 KiB), for the rest of the line
  var LogNumber = Number, LogString = String, LogBoolean = Boolean, logIsArray = Array.isArray;
  var logKeys = Object.keys, logQuote = JSON.stringify;
  function stringifyLog(a) {
    var out = [], size = 0, inside = [];
    function put(s) { out.push(s); size += s.length; }
    // walk writes v, the member key of holder, and says whether it wrote
    // anything (undefined, a function or a symbol is left out, as by JSON).
    function walk(holder, key, v) {
      if (v !== null && (typeof v === 'object' || typeof v === 'bigint') && typeof v.toJSON === 'function') v = v.toJSON(key);
      v = logValue.call(holder, key, v);
      if (v instanceof LogNumber) v = LogNumber(v);
      else if (v instanceof LogString) v = LogString(v);
      else if (v instanceof LogBoolean) v = v.valueOf();
      if (v === null) { put('null'); return true; }
      switch (typeof v) {
        case 'string': put(logQuote(v)); return true;
        case 'number': put(isFinite(v) ? LogString(v) : 'null'); return true;
        case 'boolean': put(v ? 'true' : 'false'); return true;
        case 'object': break;
        default: return false;
      }
      if (inside.indexOf(v) >= 0) { put('"[Circular]"'); return true; }
      var arr = logIsArray(v);
      if (inside.length >= LOG_DEPTH) { put(arr ? '"[Array]"' : '"[Object]"'); return true; }
      inside.push(v);
      if (arr) {
        put('[');
        for (var i = 0; i < v.length && size <= LOG_TEXT; i++) {
          if (i > 0) put(',');
          if (!walk(v, LogString(i), v[i])) put('null');
        }
        put(']');
      } else {
        put('{');
        var keys = logKeys(v), first = true;
        for (var j = 0; j < keys.length && size <= LOG_TEXT; j++) {
          var at = out.length, was = size;
          put((first ? '' : ',') + logQuote(keys[j]) + ':');
          if (walk(v, keys[j], v[keys[j]])) { first = false; continue; }
          out.length = at; size = was;
        }
        put('}');
      }
      inside.pop();
      return true;
    }
    if (!walk({ '': a }, '', a)) return undefined;
    var s = out.join('');
    return size > LOG_TEXT ? s.slice(0, LOG_TEXT) + '…' : s;
  }

  function fmt(args) {
    var out = [];
    for (var i = 0; i < args.length; i++) {
      var a = args[i];
      if (typeof a === 'string') { out.push(a); continue; }
      if (typeof a === 'bigint') { out.push(a + 'n'); continue; } // not "7n", quoted
      try {
        if (a instanceof Error) { out.push(errText(a, 0)); continue; }
        if (a instanceof LogRegExp) { out.push(String(a)); continue; }
        var s = stringifyLog(a);
        out.push(s === undefined ? String(a) : s);
      } catch (e) {
        out.push(unreadText(a, e));
      }
    }
    return out.join(' ');
  }

  // unreadText shows a value fmt could not read: its String, else that it
  // could not be read and why. A revoked Proxy (instanceof, JSON and
  // String all throw on it) or a null-prototype object with a getter that
  // throws (no toString to fall back on) threw out of console.log and
  // ctx.log and failed the call (TestLogOfUnreadableValueNeverThrows).
  function unreadText(a, e) {
    try { return String(a); } catch (e2) { /* below */ }
    var why;
    try {
      why = e instanceof Error ? String(e.name) + ': ' + String(e.message) : String(e);
    } catch (e3) {
      why = 'reading it threw';
    }
    return '[a value that could not be read: ' + why + ']';
  }

  function logger(level) {
    return function () { native.log(level, fmt(arguments)); };
  }
  var log = logger('info');
  log.debug = logger('debug');
  log.info = logger('info');
  log.warn = logger('warn');
  log.error = logger('error');
  Object.freeze(log);

  // A DataView's bytes (the window of its buffer it views) as a
  // Uint8Array, read with the intrinsics as they were before the
  // provider's code ran (DataView's getters throw on anything else, an
  // object given its prototype too); null for anything but a DataView.
  // ctx.spaces.write refused one as "got [object DataView]"
  // (TestSpaceWriteDataView).
  var reflectApply = Reflect.apply;
  var U8 = Uint8Array;
  var dvGet = function (k) { return Object.getOwnPropertyDescriptor(DataView.prototype, k).get; };
  var dvLength = dvGet('byteLength'), dvOffset = dvGet('byteOffset'), dvBuffer = dvGet('buffer');
  function dataViewBytes(d) {
    if (typeof d !== 'object' || d === null) return null;
    var n;
    try { n = reflectApply(dvLength, d, []); } catch (e) { return null; }
    return new U8(reflectApply(dvBuffer, d, []), reflectApply(dvOffset, d, []), n);
  }
  var spaces = Object.freeze({
    read: function (id, space) { return native.read(id, space, false); },
    readBytes: function (id, space) { return native.read(id, space, true); },
    write: function (space, data) {
      var b = dataViewBytes(data);
      return native.write(space, b === null ? data : b);
    },
  });
  var ai = Object.freeze({
    complete: function (prompt, opts) { return native.complete(prompt, opts); },
    // {text, model, finishReason}: finishReason 'length' is an answer cut at maxTokens
    completion: function (prompt, opts) { return native.complete(prompt, opts, true); },
  });
  function callTool(name, params, version) { return native.callTool(name, params, version); }
  var ctx = Object.freeze({
    spaces: spaces,
    ai: ai,
    log: log,
    callTool: callTool,
    // the seed's spelling (seed 000 §9.7: call_tool('pdf-extract', {...}))
    call_tool: callTool,
    get call() { return native.callInfo(); },
  });

  // goja took toLocaleString's locale argument as toString's radix:
  // (1234.5).toLocaleString('en-US') threw "RangeError: toString() radix
  // argument must be between 2 and 36". Without ECMA-402 (no Intl here)
  // ECMA-262 lets those parameter positions mean nothing else, so they are
  // ignored, as Date's and Array's toLocaleString ignore them.
  [[Number.prototype, Number.prototype.toString], [BigInt.prototype, BigInt.prototype.toString]].forEach(function (pt) {
    var toStr = pt[1];
    Object.defineProperty(pt[0], 'toLocaleString', {
      value: function toLocaleString() { return toStr.call(this); },
      writable: true, enumerable: false, configurable: true,
    });
  });

  var aios = Object.freeze({
    registerTool: registerTool,
    provider: provider,
    tool: tool,
    Agent: Agent,
    Capability: Capability,
    ToolError: ToolError,
  });
  Object.defineProperty(globalThis, 'aios', { value: aios, enumerable: false, writable: false, configurable: false });
  // console has the members of node's and browsers' that write lines
  // (dir, trace, assert, table, time…, count…, group…), not only the five
  // levels: console.dir(x) failed the call with "TypeError: Object has no
  // member 'dir'". Formatting options (dir's depth, table's columns,
  // group's indentation) are not followed; a line is fmt's.
  var timers = Object.create(null), counts = Object.create(null);
  function labelOf(l) { return l === undefined ? 'default' : String(l); }
  function rest(args, from) { var a = []; for (var i = from; i < args.length; i++) a.push(args[i]); return a; }
  function timeLine(label, args, end) {
    var k = labelOf(label);
    if (!(k in timers)) { native.log('warn', 'console: no timer "' + k + '" (console.time(label) starts one)'); return; }
    var line = k + ': ' + (Date.now() - timers[k]) + 'ms' + (args.length > 1 ? ' ' + fmt(rest(args, 1)) : '');
    if (end) delete timers[k];
    native.log('info', line);
  }
  // cfmt is fmt with the format specifiers of node's and browsers'
  // console (%s %d %i %f %j %o %O %c %%) when the first argument is a
  // string: console.log('%s=%d', 'a', 5) logged "%s=%d a 5". ctx.log
  // joins its arguments as they are, as Python's ctx.log does.
  function cfmt(args) {
    var f = args[0];
    if (typeof f !== 'string' || f.indexOf('%') < 0 || args.length < 2) return fmt(args);
    var next = 1, out = '', i = 0;
    while (i < f.length) {
      var c = f.charAt(i);
      if (c !== '%' || i + 1 >= f.length) { out += c; i++; continue; }
      var k = f.charAt(i + 1);
      if (k === '%') { out += '%'; i += 2; continue; }
      if ('sdifjoOc'.indexOf(k) < 0 || next >= args.length) { out += c; i++; continue; }
      var v = args[next++];
      switch (k) {
        case 's': out += typeof v === 'string' ? v : (typeof v === 'bigint' ? v + 'n' : (typeof v === 'symbol' ? v.toString() : fmt([v]))); break;
        case 'd': case 'i': case 'f':
          if (typeof v === 'bigint') { out += v + 'n'; break; }
          var n = typeof v === 'symbol' || (v !== null && typeof v === 'object') ? NaN : Number(v);
          if (typeof v === 'string' && k !== 'd') n = v;
          out += String(k === 'd' ? n : (k === 'i' ? parseInt(n, 10) : parseFloat(n)));
          break;
        case 'c': break;
        default: out += fmt([v]);
      }
      i += 2;
    }
    var tail = [];
    for (; next < args.length; next++) tail.push(args[next]);
    return tail.length ? out + ' ' + fmt(tail) : out;
  }
  function clogger(level) {
    return function () { native.log(level, cfmt(arguments)); };
  }
  var consoleObj = {
    log: clogger('info'), info: clogger('info'), debug: clogger('debug'), warn: clogger('warn'), error: clogger('error'),
    dir: function (v) { native.log('info', fmt([v])); },
    dirxml: clogger('info'),
    table: function (v) { native.log('info', fmt([v])); },
    trace: function () {
      // Frames as an error's data.stack has them (cleanStack): no
      // bytecode offset after line:col, no empty line after the last.
      var st = String(new Error().stack || '').split('\n').slice(1).filter(function (l) { return l !== '' && l.indexOf('aios-sdk-prelude.js') < 0; })
        .map(function (l) { return l.replace(/(:\d+:\d+)\(\d+\)/, '$1'); });
      native.log('info', 'Trace' + (arguments.length ? ': ' + cfmt(arguments) : '') + (st.length ? '\n' + st.join('\n') : ''));
    },
    assert: function (cond) {
      if (!cond) native.log('error', 'Assertion failed' + (arguments.length > 1 ? ': ' + cfmt(rest(arguments, 1)) : ''));
    },
    time: function (label) { timers[labelOf(label)] = Date.now(); },
    timeLog: function (label) { timeLine(label, arguments, false); },
    timeEnd: function (label) { timeLine(label, arguments, true); },
    count: function (label) { var k = labelOf(label); counts[k] = (counts[k] || 0) + 1; native.log('info', k + ': ' + counts[k]); },
    countReset: function (label) { delete counts[labelOf(label)]; },
    group: function () { if (arguments.length) native.log('info', cfmt(arguments)); },
    groupCollapsed: function () { if (arguments.length) native.log('info', cfmt(arguments)); },
    groupEnd: function () {},
  };
  Object.defineProperty(globalThis, 'console', {
    value: Object.freeze(consoleObj),
    enumerable: false, writable: true, configurable: true,
  });
  // Named as in node and browsers: their names were the Go methods'
  // ("github.com/aios-host/…(*worker).nativeSetTimeout-fm"), shown by
  // setTimeout.name and String(setTimeout) (TestTimerFunctionsNamed).
  ['setTimeout', 'clearTimeout'].forEach(function (n) {
    defineProperty(native[n], 'name', { value: n, writable: false, enumerable: false, configurable: true });
    globalThis[n] = native[n];
  });
  // A callback that is not a function is a TypeError, as in browsers and
  // node and as setTimeout's: Promise.prototype.then ignored it, so
  // queueMicrotask(work()) ran nothing without a word.
  var resolved = Promise.resolve(), then = Promise.prototype.then;
  globalThis.queueMicrotask = function queueMicrotask(fn) {
    if (typeof fn !== 'function') {
      throw new TypeError('queueMicrotask: the argument must be a function, got ' + (fn === null ? 'null' : typeof fn));
    }
    then.call(resolved, function () { fn(); });
  };

  return {
    tools: tools,
    ctx: ctx,
    ToolError: ToolError,
    Uint8Array: Uint8Array,
    info: function () { return info; },
    // show: a value as a log line shows it (a thrown object JSON cannot
    // carry, a Map or a Set: errors.go's describeObject).
    show: function (v) { return fmt([v]); },
    pending: function () { return pending.map(function (t) { return t.key; }); },
  };
})
