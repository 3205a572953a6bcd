// A precompiled acceptor for the hot request bodies. zod stays the authority: the acceptor only answers "valid,
// and here is exactly what zod would return" for the common case, and callers run zod whenever it declines, so
// every error message still comes from zod. It is generated from the schema itself, so the two cannot drift
// apart, and it refuses (at start-up) any schema feature it does not reproduce exactly. Generated code rather
// than closures: each object's fields become named loads and stores, which V8 keeps monomorphic.
import { z } from 'zod';

/** What an acceptor returns for a value it does not vouch for; zod then decides. */
export const DECLINED: unique symbol = Symbol('declined');

type CheckDef = z.core.$ZodChecks['_zod']['def'];
/** Formats that are nothing but their pattern (others, such as url, run code of their own). */
const PATTERN_FORMATS = new Set(['datetime', 'date', 'time']);

class Generator {
  readonly constants: unknown[] = [];
  #names = 0;

  name(): string {
    return `v${this.#names++}`;
  }

  constant(value: unknown): string {
    this.constants.push(value);
    return `k[${this.constants.length - 1}]`;
  }

  /** Statements that check the value in `v`, leave zod's output for it in `v`, or return DECLINED. */
  check(schema: z.core.$ZodType, v: string): string {
    const def = schema._zod.def;
    // A format (z.iso.datetime(), z.int()...) is a check on itself, ahead of those chained onto it.
    const own = schema._zod.traits.has('$ZodCheck') ? [def as unknown as CheckDef] : [];
    const checks = [...own, ...(def.checks ?? []).map((c) => c._zod.def as CheckDef)];
    if (def.type !== 'string' && def.type !== 'number' && checks.length > 0)
      throw new Error(`fast schema: checks on ${def.type} are not supported`);
    if ('coerce' in def && def.coerce) throw new Error('fast schema: coercion is not supported');
    switch (def.type) {
      case 'string':
        return `if (typeof ${v} !== 'string') return D;\n${this.#stringChecks(checks, v)}`;
      case 'number':
        return this.#numberCheck(checks, v);
      case 'boolean':
        return `if (typeof ${v} !== 'boolean') return D;`;
      case 'optional':
        return `if (${v} !== undefined) {\n${this.check((def as z.core.$ZodOptionalDef).innerType, v)}\n}`;
      case 'nullable':
        return `if (${v} !== null) {\n${this.check((def as z.core.$ZodNullableDef).innerType, v)}\n}`;
      case 'object':
        return this.#object(schema as z.core.$ZodObject, v);
      default:
        throw new Error(`fast schema: ${def.type} is not supported`);
    }
  }

  #stringChecks(checks: readonly CheckDef[], v: string): string {
    let min = 0;
    let max = Infinity;
    const out: string[] = [];
    for (const c of checks) {
      if (c.check === 'min_length') min = Math.max(min, c.minimum);
      else if (c.check === 'max_length') max = Math.min(max, c.maximum);
      else if (c.check === 'string_format' && PATTERN_FORMATS.has(c.format) && c.pattern) {
        const pattern = this.constant(c.pattern);
        out.push(`${pattern}.lastIndex = 0;`, `if (!${pattern}.test(${v})) return D;`);
      } else throw new Error(`fast schema: string check ${c.check} ${'format' in c ? c.format : ''} is not supported`);
    }
    // zod counts code points; UTF-16 units differ from them only for surrogate pairs, so count those only when in doubt.
    if (min > 0 || max < Infinity) {
      out.unshift(
        `if ((${v}.length > ${max} || ${v}.length < ${2 * min}) && (codePoints(${v}) > ${max} || codePoints(${v}) < ${min})) return D;`,
      );
    }
    return out.join('\n');
  }

  #numberCheck(checks: readonly CheckDef[], v: string): string {
    if (checks.length === 0) return `if (typeof ${v} !== 'number' || !Number.isFinite(${v})) return D;`;
    if (checks.length === 1 && checks[0]!.check === 'number_format' && checks[0]!.format === 'safeint')
      return `if (!Number.isSafeInteger(${v})) return D;`;
    throw new Error(`fast schema: number checks ${checks.map((c) => c.check).join(', ')} are not supported`);
  }

  /** zod's strict object: a fresh object with the shape's keys in the shape's order; a present key keeps even undefined. */
  #object(schema: z.core.$ZodObject, v: string): string {
    const def = schema._zod.def;
    if (def.catchall?._zod.def.type !== 'never') throw new Error('fast schema: only strict objects are supported');
    const known = this.constant(new Set(Object.keys(def.shape)));
    const out = this.name();
    const lines = [
      `if (typeof ${v} !== 'object' || ${v} === null || Array.isArray(${v})) return D;`,
      // for...in, as zod does: an inherited enumerable key is an unknown key too.
      `for (const key in ${v}) if (!${known}.has(key)) return D;`,
      `const ${out} = {};`,
    ];
    for (const [key, field] of Object.entries(def.shape)) {
      const k = JSON.stringify(key);
      const item = this.name();
      const optional = field._zod.optin === 'optional' && field._zod.optout === 'optional';
      lines.push(`let ${item} = ${v}[${k}];`);
      if (optional) {
        lines.push(
          `if (${item} !== undefined) {`,
          this.check(field, item),
          `${out}[${k}] = ${item};`,
          `} else if (${k} in ${v}) ${out}[${k}] = undefined;`,
        );
      } else {
        lines.push(this.check(field, item), `${out}[${k}] = ${item};`);
      }
    }
    lines.push(`${v} = ${out};`);
    return `{\n${lines.join('\n')}\n}`;
  }
}

/** The acceptor alone: zod's output for a value zod accepts, DECLINED otherwise (tests compare the two). */
export function fastAcceptor<T extends z.ZodType>(schema: T): (value: unknown) => z.output<T> | typeof DECLINED {
  const generator = new Generator();
  const body = `return function accept(input) {\n${generator.check(schema, 'input')}\nreturn input;\n}`;
  return new Function('D', 'k', 'codePoints', body)(DECLINED, generator.constants, z.core.util.codePointLength);
}

/** `schema.safeParse`, answered by the acceptor when it can and by zod (with zod's issues) when it cannot. */
export function precompiled<T extends z.ZodType>(schema: T): (value: unknown) => z.ZodSafeParseResult<z.output<T>> {
  const accept = fastAcceptor(schema);
  return (value) => {
    const data = accept(value);
    return data === DECLINED ? schema.safeParse(value) : { success: true, data };
  };
}
