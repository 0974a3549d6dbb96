/**
 * The JavaScript that builds the program's world inside QuickJS before the program runs:
 * `console`, the `sandbox` object and a CommonJS-style `require` over the run's own files.
 * It receives the host functions as one argument and keeps them in its closure, so the program
 * sees only what is put on `globalThis` here. Written in plain ES2020 for QuickJS, as a string.
 */
export const PRELUDE = String.raw`(function (host) {
  'use strict';
  const MAX_DEPTH = 2;

  function inspect(value, depth, seen) {
    if (typeof value === 'string') return depth === 0 ? value : JSON.stringify(value);
    if (typeof value === 'bigint') return String(value) + 'n';
    if (typeof value === 'symbol') return value.toString();
    if (typeof value === 'function') return '[Function: ' + (value.name || '(anonymous)') + ']';
    if (value === null || typeof value !== 'object') return String(value);
    if (value instanceof Error) {
      return value.name + ': ' + value.message + (value.stack ? '\n' + value.stack.replace(/\n$/, '') : '');
    }
    if (seen.indexOf(value) >= 0) return '[Circular]';
    if (depth > MAX_DEPTH) return Array.isArray(value) ? '[Array]' : '[Object]';
    const inner = seen.concat([value]);
    if (Array.isArray(value)) {
      const items = value.slice(0, 100).map((item) => inspect(item, depth + 1, inner));
      if (value.length > 100) items.push('... ' + (value.length - 100) + ' more items');
      return items.length === 0 ? '[]' : '[ ' + items.join(', ') + ' ]';
    }
    if (value instanceof Map) return 'Map(' + value.size + ') ' + inspect(Object.fromEntries(value), depth, inner);
    if (value instanceof Set) return 'Set(' + value.size + ') ' + inspect(Array.from(value), depth, inner);
    const keys = Object.keys(value);
    const fields = keys.slice(0, 100).map((key) => {
      const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
      return name + ': ' + inspect(value[key], depth + 1, inner);
    });
    return fields.length === 0 ? '{}' : '{ ' + fields.join(', ') + ' }';
  }

  const line = (args) => args.map((arg) => inspect(arg, 0, [])).join(' ') + '\n';
  const out = (...args) => host.write(1, line(args));
  const err = (...args) => host.write(2, line(args));
  globalThis.console = Object.freeze({ log: out, info: out, debug: out, error: err, warn: err });

  globalThis.sandbox = Object.freeze({
    args: Object.freeze(host.args.slice()),
    stdin: host.stdin,
    readFile: host.readFile,
    writeFile: host.writeFile,
    deleteFile: host.deleteFile,
    listFiles: host.listFiles,
    exit: host.exit,
  });

  const cache = Object.create(null);

  function dirOf(path) {
    const cut = path.lastIndexOf('/');
    return cut < 0 ? '' : path.slice(0, cut);
  }

  function loadPath(path) {
    const cached = cache[path];
    if (cached) return cached.exports;
    const module = { id: path, filename: path, exports: {}, loaded: false };
    cache[path] = module;
    const source = host.readFile(path);
    if (/\.json$/.test(path)) {
      module.exports = JSON.parse(source);
    } else {
      const dir = dirOf(path);
      const require = (specifier) => loadPath(host.resolve(dir, specifier));
      host.compile(path, source).call(module.exports, module.exports, require, module, path, dir);
    }
    module.loaded = true;
    return module.exports;
  }

  globalThis.require = (specifier) => loadPath(host.resolve('', specifier));
  return loadPath;
})`;

/** The wrapper each module's source is compiled in; one line, so line numbers stay the file's own. */
export const wrapModule = (source: string): string =>
  `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
