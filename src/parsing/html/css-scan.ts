/**
 * The string-aware scanning a stylesheet is read with: comments removed, strings and escapes
 * stepped over, a bracket's matching close found, and a list split on its top-level separators.
 */

export function stripComments(css: string): string {
  let out = '';
  let index = 0;
  while (index < css.length) {
    const start = css.indexOf('/*', index);
    if (start < 0) {
      out += css.slice(index);
      break;
    }
    out += css.slice(index, start);
    const end = css.indexOf('*/', start + 2);
    if (end < 0) break;
    out += ' ';
    index = end + 2;
  }
  return out;
}

/** Index just past the string starting at `index` (a quote character), escapes honoured. */
export function skipString(css: string, index: number): number {
  const quote = css[index];
  let i = index + 1;
  while (i < css.length) {
    const char = css[i];
    if (char === '\\') i += 2;
    else if (char === quote || char === '\n') return i + 1;
    else i += 1;
  }
  return css.length;
}

/**
 * Index of the bracket closing the one at `open` (`{`…`}` or `(`…`)`), stepping over strings and
 * escapes and counting nested pairs; -1 when it is never closed.
 */
export function matchingClose(
  text: string,
  open: number,
  opening = text[open],
  closing = opening === '{' ? '}' : ')',
): number {
  let depth = 0;
  let i = open;
  while (i < text.length) {
    const char = text[i];
    if (char === '"' || char === "'") {
      i = skipString(text, i);
      continue;
    }
    if (char === '\\') {
      i += 2;
      continue;
    }
    if (char === opening) depth += 1;
    else if (char === closing) {
      depth -= 1;
      if (depth === 0) return i;
    }
    i += 1;
  }
  return -1;
}

/** Splits on `separator` outside strings, brackets and parentheses. */
export function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '"' || char === "'") {
      i = skipString(text, i);
      continue;
    }
    if (char === '\\') {
      i += 2;
      continue;
    }
    if (char === '(' || char === '[' || char === '{') depth += 1;
    else if ((char === ')' || char === ']' || char === '}') && depth > 0) depth -= 1;
    else if (char === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
    i += 1;
  }
  parts.push(text.slice(start));
  return parts;
}
