/**
 * Whether a match is discussed rather than addressed to the reader. Articles about prompt injection
 * quote payloads; flagging every quote would flag every such article, and ignoring every quote
 * would let a payload pass by wearing quotation marks. So a match counts as discussed only when
 *  - it is quoted or shown as code AND words nearby say it is an example, a payload, an attack;
 *  - or it is a block introduced as one ("The payload read:", "…a tool call such as");
 *  - or it is reported speech: someone asked, told or made a model do it, a model decided or
 *    tried to do it, or "you can" do it (a capability described, not a request made).
 * An attacker who dresses a payload as a quoted example passes; docs/injection.md says so.
 */

import { unicodeWords } from './regex.ts';

/** Words that say quoted text is an example of something rather than a request. */
const CUE = unicodeWords(
  /\b(?:for\s+example|for\s+instance|such\s+as|examples?|payloads?|prompt[-\s]injections?|injections?|jailbreaks?|attacks?|attackers?|adversar\w*|red[-\s]team\w*|researchers?|phrases?|sentences?|say|says|said|saying|told|prompts?|type|typed|paste|pasted|enter|entered|wrote|writes|containing|contains|zum\s+Beispiel|beispielsweise|etwa|par\s+exemple|por\s+ejemplo|ad\s+esempio)\b|\be\.g\./i,
);

/** An example introduced inline, just before the match: "a line such as <!-- … -->". */
const EXAMPLE_BEFORE = unicodeWords(
  /(?:\bsuch\s+as|\be\.g\.|\bfor\s+example|\bfor\s+instance)\s*[:,]?\s*(?:<!--|["'`“„«‘(<[])?\s*$/i,
);

/** A paragraph that introduces the next block as an example ends like this. */
const INTRODUCES = unicodeWords(
  /(?::|\bsuch\s+as|\bfor\s+example|\be\.g\.|\bas\s+follows|\blike\s+this)\s*$/i,
);

/** Someone (not the reader) was asked, told or made to do what follows, or a text said it. */
const REPORTED = unicodeWords(
  /\b(?:asked|asks|asking|told|tells|telling|instructed|instructs|tricked|tricks|tricking|convinced|convinces|persuaded|persuades|coaxed|got|gets|getting|made|makes|making|make|forced|forces|caused|causes|lets|letting)\s+(?!sure\b)(?:[\w'’-]+\s+){1,4}?(?:to\s+(?:\w+\s+)?)?$|\b(?:decides?|decided|chooses?|chose|tries|tried|attempts?|attempted|wants?|wanted|refuses?|refused|fails?|failed|(?:is|was)\s+(?:able|allowed|tricked\s+into))\s+to\s+$|\b(?:you\s+(?:can|could|may)|allows?\s+you\s+to|lets\s+you|can\s+be\s+used\s+to|how\s+to|in\s+order\s+to)\s+$|\b(?:that|which|who|it|page|text|message|site|document|comment|email|note|post|prompt|payload)\s+(?:says|said|reads|read|states|stated|contains|contained)\s*[:,]?\s*["“'‘]?$|\b(?:might|would|could|may)\s+(?:say|read)\s*[:,]?\s*["“'‘]?$/i,
);

/** Opening quotation marks and the mark that closes each. */
const CLOSER: Record<string, string> = {
  '"': '"',
  '`': '`',
  '“': '”',
  '„': '“',
  '«': '»',
  '「': '」',
  '『': '』',
};

/** Single quotation marks, which double as apostrophes. */
const SINGLE = new Map([
  ["'", "'"],
  ['‘', '’'],
]);

/** How far back the paragraph and quote scans look, so a text without blank lines costs little. */
const WINDOW = 2_000;

export class DiscussionContext {
  private fences: Array<[number, number]> | null = null;

  constructor(private readonly text: string) {}

  /** Whether the match at [offset, offset + length) is discussed, not addressed to the reader. */
  isDiscussed(offset: number): boolean {
    const text = this.text;
    const before = text.slice(Math.max(0, offset - 120), offset);
    if (REPORTED.test(before) || EXAMPLE_BEFORE.test(before)) return true;
    const paragraphStart = this.paragraphStart(offset);
    const previousStart = paragraphStart > 0 ? this.paragraphStart(Math.max(0, paragraphStart - 2)) : 0;
    const previous = text.slice(previousStart, paragraphStart).trim();
    if (INTRODUCES.test(previous) && CUE.test(previous)) return true;
    if (!this.inFence(offset) && !this.inQuotes(paragraphStart, offset)) return false;
    const paragraphEnd = this.paragraphEnd(offset);
    return CUE.test(text.slice(previousStart, paragraphEnd));
  }

  private paragraphStart(offset: number): number {
    const from = Math.max(0, offset - WINDOW);
    let start = from;
    for (const blank of this.text.slice(from, offset).matchAll(/\n[ \t]*\n/g)) {
      start = from + blank.index + blank[0].length;
    }
    return start;
  }

  private paragraphEnd(offset: number): number {
    const rest = this.text.slice(offset, offset + WINDOW);
    const breakAt = rest.search(/\n[ \t]*\n/);
    return breakAt >= 0 ? offset + breakAt : offset + rest.length;
  }

  /**
   * Whether a quotation opened earlier in the paragraph is still open at `offset`. A single quote
   * opens only after a space or bracket and closes only before a non-letter, so apostrophes
   * ("don't", "users'") neither open nor close one.
   */
  private inQuotes(paragraphStart: number, offset: number): boolean {
    const text = this.text;
    let closer: string | null = null;
    for (let i = Math.max(paragraphStart, offset - WINDOW); i < offset; i++) {
      const character = text[i]!;
      if (closer === null) {
        if (SINGLE.has(character)) {
          if (i === paragraphStart || /[\s([{]/.test(text[i - 1]!)) closer = SINGLE.get(character)!;
        } else closer = CLOSER[character] ?? null;
      } else if (character === closer && (!SINGLE.has(closer) || !/\p{L}/u.test(text[i + 1] ?? ''))) {
        closer = null;
      } else if (closer === '’' && character === "'" && !/\p{L}/u.test(text[i + 1] ?? '')) closer = null;
    }
    return closer !== null;
  }

  /** Whether `offset` lies inside a ``` fenced block. */
  private inFence(offset: number): boolean {
    if (this.fences === null) {
      this.fences = [];
      let open = -1;
      for (const match of this.text.matchAll(/^[ \t]*```/gm)) {
        if (open < 0) open = match.index;
        else {
          this.fences.push([open, match.index]);
          open = -1;
        }
      }
    }
    return this.fences.some(([start, end]) => offset > start && offset < end);
  }
}
