/**
 * Finds text addressed to the reading agent rather than to a human reader: prompt-injection
 * phrasing, chat role markers, tool-call lures. The result only annotates; the text is never
 * changed, so quotes still match. Patterns are deliberately specific (verb + object) to keep
 * ordinary prose free of false positives.
 */
import type { InstructionSpan } from './types.ts';

const MAX_SPANS = 50;
const MAX_EXCERPT = 200;

interface Pattern {
  kind: string;
  regex: RegExp;
  /** Skip a match when the words just before it negate it ("never send your password"). */
  skipWhenNegated?: boolean;
}

const PATTERNS: Pattern[] = [
  {
    kind: 'IGNORE_PREVIOUS',
    regex:
      /\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:(?:all|any|every|the|your|of|these|those)\s+){0,3}(?:previous|prior|above|earlier|preceding|foregoing|original|system)\s+(?:instructions?|prompts?|directions?|directives?|rules|guidelines|context|messages?|commands?)\b/gi,
  },
  {
    kind: 'ROLE_PROMPT',
    regex:
      /\byou\s+are\s+now\s+(?:an?\s+|the\s+|in\s+)?(?:(?:unrestricted|uncensored|jailbroken|unfiltered|new|different|evil|helpful)\s+)?(?:AI|assistant|agent|model|language\s+model|LLM|chatbot|bot|DAN|developer\s+mode|god\s+mode)\b/gi,
  },
  {
    kind: 'ROLE_PROMPT',
    regex:
      /\b(?:act|behave|respond)\s+as\s+(?:an?\s+|the\s+|if\s+you\s+were\s+an?\s+)?(?:(?:unrestricted|uncensored|jailbroken|unfiltered)\s+)?(?:AI(?:\s+assistant)?|assistant|language\s+model|LLM|chatbot|DAN|system\s+administrator|root\s+user|developer\s+mode)\b/gi,
  },
  {
    kind: 'ROLE_PROMPT',
    regex:
      /\b(?:reveal|print|show|output|repeat|leak|ignore|override|replace|new|updated)\s+(?:me\s+)?(?:your|the|this)?\s*system\s+prompts?\b/gi,
  },
  {
    kind: 'ROLE_MARKER',
    regex:
      /<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|\[\/?INST\]|<<\/?SYS>>|<\/?system>|^[ \t]*(?:SYSTEM|ASSISTANT|DEVELOPER)\s*:|^[ \t]*#{2,3}\s*(?:Instruction|System(?:\s+prompt)?)s?\s*:/gm,
  },
  {
    kind: 'TOOL_CALL_LURE',
    regex: /\b(?:call|invoke|execute|trigger)\s+(?:the|your|this)\s+(?:[\w-]+\s+)?tool\b/gi,
  },
  {
    kind: 'TOOL_CALL_LURE',
    regex:
      /\b(?:run|call|invoke|use|execute)\s+`?[a-z][a-z0-9]*_[a-z0-9_]+`?\s+(?:tool\s+)?(?:on|with|against)\b/g,
  },
  {
    kind: 'TOOL_CALL_LURE',
    regex:
      /\b(?:send|share|post|paste|give|forward|email|provide|reveal|leak|upload|include|print)\s+(?:(?:me|us|it|them)\s+)?(?:your|the\s+agent'?s?|all\s+(?:of\s+)?your|any)\s+(?:[\w-]+\s+){0,2}?(?:tokens?|credentials?|api[\s_-]?keys?|passwords?|secrets?|session\s+cookies?|private\s+keys?)\b/gi,
    skipWhenNegated: true,
  },
  {
    kind: 'TOOL_CALL_LURE',
    regex: /<\/?(?:tool_call|tool_use|function_call|function_calls|invoke)\b[^>]{0,100}>/gi,
  },
  {
    kind: 'TOOL_CALL_LURE',
    regex:
      /\{\s*"(?:name|tool|tool_name|function)"\s*:\s*"[\w.-]{1,64}"\s*,\s*"(?:arguments|parameters|args|input)"\s*:/g,
  },
];

const NEGATION_BEFORE =
  /\b(?:never|not|don't|do\s+not|no\s+one|nobody|won't|will\s+not|shouldn't|should\s+not)\s+(?:\w+\s+){0,2}$/i;

function isNegated(text: string, offset: number): boolean {
  return NEGATION_BEFORE.test(text.slice(Math.max(0, offset - 40), offset));
}

/** Every instruction-like match in `text`, ordered by offset, overlapping matches merged into the first. */
export function findInstructionSpans(text: string): InstructionSpan[] {
  const spans: InstructionSpan[] = [];
  for (const pattern of PATTERNS) {
    for (const match of text.matchAll(pattern.regex)) {
      const offset = match.index ?? 0;
      if (pattern.skipWhenNegated && isNegated(text, offset)) continue;
      spans.push({
        offset,
        length: match[0].length,
        kind: pattern.kind,
        excerpt: match[0].slice(0, MAX_EXCERPT),
      });
    }
  }
  spans.sort((a, b) => a.offset - b.offset);
  const merged: InstructionSpan[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.offset < last.offset + last.length) continue;
    merged.push(span);
    if (merged.length >= MAX_SPANS) break;
  }
  return merged;
}

/**
 * Spans for the final text plus one HIDDEN_TEXT span (offset -1) for each instruction-like
 * match inside content that was removed as hidden, and the flags that follow from them.
 */
export function detectInstructions(
  text: string,
  hiddenTexts: string[] = [],
): { spans: InstructionSpan[]; flags: string[] } {
  const spans = findInstructionSpans(text);
  for (const hidden of hiddenTexts) {
    for (const match of findInstructionSpans(hidden)) {
      if (spans.length >= MAX_SPANS) break;
      spans.push({ offset: -1, length: match.length, kind: 'HIDDEN_TEXT', excerpt: match.excerpt });
    }
  }
  return { spans, flags: spans.length > 0 ? ['INSTRUCTION_LIKE_CONTENT'] : [] };
}
