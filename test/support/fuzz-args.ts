import fc from 'fast-check';

/**
 * Malformed (and some well-formed) tool arguments generated from a tool's own published input
 * schema (JSON Schema, as /v1/public/tools?format=json gives it): wrong types, missing and extra
 * keys, boundary lengths and numbers, control characters, non-characters, lone surrogates and
 * NUL, deep nesting and prototype keys. Known ids (`pools`) are mixed in so handlers get past
 * their lookups and deeper into their work.
 */

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
}

/** Values the server already holds, by id prefix (`evd`, `task`, …) or by property name (`url`). */
export type Pools = Record<string, string[]>;

const NASTY_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\ud800',
  'x\udfff',
  '\uffff\ufffe',
  '\u0007\u001b[31m',
  '\u202e\u2066reversed',
  '\u{e0041}\u{e0042}',
  '%00%ff',
  "'; drop table agents; --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, meant literally
  '${jndi:ldap://x}',
  '{{7*7}}',
  '../../etc/passwd',
  '🧗'.repeat(100),
];

const prototypeKeyed = fc.constantFrom('__proto__', 'constructor', 'prototype').map((key) => {
  const o: Record<string, unknown> = {};
  Object.defineProperty(o, key, { value: { polluted: true }, enumerable: true });
  return o;
});

const deep = fc.integer({ min: 20, max: 80 }).map((levels) => {
  let v: unknown = 'bottom';
  for (let i = 0; i < levels; i++) v = { v };
  return v;
});

/** Anything that is not a value of the schema's type. */
const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ maxLength: 20 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
  prototypeKeyed,
  deep,
);

function stringFor(name: string, s: JsonSchema, pools: Pools): fc.Arbitrary<string> {
  const prefix = /^\^([a-z]+)_/.exec(s.pattern ?? '')?.[1];
  const known = pools[prefix ?? name] ?? [];
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? 300;
  const choices: Array<fc.Arbitrary<string>> = [
    fc.string({ minLength: min, maxLength: Math.min(max, 40) }),
    fc.constant('a'.repeat(max)),
    fc.constant('a'.repeat(max + 1)),
    fc.constantFrom(...NASTY_STRINGS),
    // The same, long enough to pass a minimum length and reach what lies behind it.
    fc.constantFrom(...NASTY_STRINGS).map((n) => `${n}${'x'.repeat(Math.max(0, min - n.length))}`),
    fc.string({ unit: 'grapheme', maxLength: 30 }),
    fc.string({ unit: 'binary', maxLength: 30 }),
  ];
  if (min > 0) choices.push(fc.constant('a'.repeat(min - 1)));
  if (prefix) choices.push(fc.stringMatching(/^[0-9A-Za-z]{1,70}$/).map((tail) => `${prefix}_${tail}`));
  if (known.length > 0) choices.push(fc.constantFrom(...known), fc.constantFrom(...known));
  return fc.oneof(...choices);
}

function numberFor(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = s.minimum ?? -1e9;
  const max = s.maximum ?? 1e9;
  return fc.oneof(
    integer
      ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31) })
      : fc.double({ min, max }),
    fc.constantFrom(min, max, min - 1, max + 1, 0.5, -0, 1e308, -1e308, 2 ** 53 + 1, Number.MIN_VALUE),
  );
}

/** A value for one property: mostly of its own type (to reach the handler), often not. */
export function valueFor(name: string, s: JsonSchema, pools: Pools, depth = 0): fc.Arbitrary<unknown> {
  if (depth > 3) return wrongType;
  const own = ((): fc.Arbitrary<unknown> | null => {
    if (s.enum && s.enum.length > 0) return fc.constantFrom(...s.enum);
    if (s.anyOf && s.anyOf.length > 0)
      return fc.oneof(...s.anyOf.map((a) => valueFor(name, a, pools, depth + 1)));
    const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
    switch (type) {
      case 'string':
        return stringFor(name, s, pools);
      case 'integer':
        return numberFor(s, true);
      case 'number':
        return numberFor(s, false);
      case 'boolean':
        return fc.boolean();
      case 'array':
        return fc.array(s.items ? valueFor(name, s.items, pools, depth + 1) : fc.jsonValue({ maxDepth: 1 }), {
          maxLength: Math.min((s.maxItems ?? 5) + 1, 25),
        });
      case 'object':
        return argumentsFor(s, pools, depth + 1);
      default:
        return null;
    }
  })();
  return own ? fc.oneof({ weight: 3, arbitrary: own }, { weight: 1, arbitrary: wrongType }) : wrongType;
}

/** A whole arguments object: each property present or not, extra and prototype keys sometimes. */
export function argumentsFor(s: JsonSchema, pools: Pools, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const properties = s.properties ?? {};
  const entries = Object.entries(properties).map(
    ([name, prop]) =>
      [name, fc.option(valueFor(name, prop, pools, depth), { nil: undefined, freq: 4 })] as const,
  );
  const known = fc.record(Object.fromEntries(entries) as Record<string, fc.Arbitrary<unknown>>);
  const extra = fc.option(
    fc.oneof(
      fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fc.jsonValue({ maxDepth: 1 }), {
        maxKeys: 2,
      }),
      prototypeKeyed,
    ),
    { nil: undefined, freq: 3 },
  );
  return fc.tuple(known, extra).map(([args, more]) => {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(args)) if (v !== undefined) out[k] = v;
    if (more) {
      for (const key of Object.keys(more)) {
        Object.defineProperty(out, key, {
          value: more[key],
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    }
    return out;
  });
}
