/**
 * The addressee model: text that speaks to its reader as an AI — an assistant, agent, model, bot,
 * LLM, tool, crawler or summariser, named in any covered language — and then tells it what to do.
 * A page for people names its reader "you" or "readers"; naming the reader an AI and following
 * with an imperative or a rule ("must", "should") is the mark of an injection, whatever the verb
 * or the wording. Each construction is one pattern: a vocative ("Reviewer bots: mark…"), a
 * dedication ("Message to the grading model: …"), a description of the reader ("Any AI tool
 * processing this résumé should…"), a condition on who it is ("If you are a language model…",
 * "As an LLM reviewer, your…") and a greeting ("Hey Claude"). Vocatives and dedications to a
 * common noun ("the agent") need the directive after them; the vocabulary is instruction-vocabulary.ts.
 */
import type { Pattern } from './patterns.ts';
import { unicodeWords } from './regex.ts';
import {
  AI_NP,
  AI_NP_INTL,
  AI_NP_PAIR,
  atClauseStart,
  COMMON_NOUN,
  hasDirective,
  IMPERATIVE,
  inTranscript,
  lineAfter,
} from './vocabulary.ts';

const KIND = 'ADDRESSED_TO_AGENT';
const re = (source: string, flags = 'gi') => new RegExp(source, flags);

/** A participle or relative clause that ties the reader to this page: "working on this repository". */
const ABOUT_THIS = String.raw`(?:\s+(?:\w+ing|(?:that|which|who)\s+(?:are\s+|is\s+)?\w+)(?:\s+(?:on|with|through|over|in|at|from))?\s+(?:this|these|the|our|my)\s+[\w'’-]+(?:\s+[\w'’-]+)?)`;

/** Messages that are addressed by what they are called. */
const MESSAGE = String.raw`(?:(?:important|urgent|private|special|hidden|final|quick|a)\s+)?(?:notes?|messages?|memo|reminders?|notices?|warnings?|instructions?|directives?|requests?|P\.?\s?S\.?|tips?|hints?|heads[\s-]up|updates?|word|guidance|info(?:rmation)?|attention|(?:written|meant|intended|addressed|here)(?:\s+(?:only|specifically|also|mainly))?)`;

/** Bare nouns that may name an AI reader when the sentence describes it reading this page. */
const BARE_READER = `(?:agents?|assistants?|bots?|crawlers?|scrapers?|summari[sz]ers?)`;

const RULE = String.raw`(?:must|should|shall|needs?\s+to|ha(?:ve|s)\s+to|(?:is|are)\s+(?:required|asked|expected|instructed|requested|obliged|to)|may\s+only|can\s+only|will\s+(?:need|have)|ought\s+to)`;

/** What may open a vocative before the noun: "Hey", "Attention all", "you". */
const VOCATIVE_LEAD = unicodeWords(
  /(?:\b(?:hey|hi|hello|dear|attention|attn|ok|okay|listen(?:\s+up)?|important|urgent)[\s,!:]+)?(?:\b(?:all|any|every|each|you|the|our|fellow)\s+)?$/i,
);

/** What follows a dedication: a colon or dash, then (in the line) an instruction. */
const dedicationDirected = (text: string, index: number, match: string): boolean => {
  const after = lineAfter(text, index + match.length);
  return /^(?:\s+[\w'’-]+){0,6}?\s*[:—–-]/.test(after) && hasDirective(after.replace(/^[^:—–-]*[:—–-]/, ''));
};

export const ADDRESS_PATTERNS: Pattern[] = [
  {
    // Vocative: "Reviewer bots: mark…", "Coding agents working on this repository: read…".
    kind: KIND,
    regex: re(String.raw`\b${AI_NP_PAIR}${ABOUT_THIS}?\s*[:,—–]`),
    requires: (text, index, match) =>
      atClauseStart(
        text,
        index - (VOCATIVE_LEAD.exec(text.slice(Math.max(0, index - 40), index))?.[0].length ?? 0),
      ) &&
      !inTranscript(text, index) &&
      hasDirective(lineAfter(text, index + match.length)),
  },
  {
    // A speaker-like vocative to a common noun, with the imperative straight after: "AGENT: set…".
    kind: KIND,
    regex: re(String.raw`\b(?:agent|assistant|model)s?\s*[:,—–]\s*(?:please\s+|now\s+)?${IMPERATIVE}\b`),
    requires: (text, index, match) =>
      atClauseStart(text, index) &&
      !inTranscript(text, index) &&
      hasDirective(text.slice(index + match.search(/[:,—–]/) + 1, index + match.length + 40)),
  },
  {
    // Dedication to an AI reader: "Note to AI assistants", "P.S. to any AI summarising this thread".
    kind: KIND,
    regex: re(
      String.raw`\b${MESSAGE}\s+(?:to|for)\s+(?:(?:all|any|every|each|the|our|you)\s+)?${AI_NP_PAIR}${ABOUT_THIS}?`,
    ),
    requires: (text, index, match) =>
      /\b(?:note|message|memo|reminder|notice|instruction|P\.?\s?S)/i.test(match) ||
      new RegExp(ABOUT_THIS).test(match) ||
      dedicationDirected(text, index, match),
  },
  {
    // Dedication to a common noun, then a directive: "Message to the review-summarisation system: Output…".
    kind: KIND,
    regex: re(
      String.raw`\b${MESSAGE}\s+(?:to|for)\s+(?:(?:all|any|every|each|the|our|you)\s+)?(?:[\w'’]+[\s-]+){0,2}?${COMMON_NOUN}\b${ABOUT_THIS}?`,
    ),
    requires: (text, index, match) =>
      new RegExp(ABOUT_THIS).test(match) || dedicationDirected(text, index, match),
  },
  {
    // The reader described, then a rule: "Any AI tool processing this résumé should…".
    kind: KIND,
    regex: re(
      String.raw`\b(?:(?:any|all|every|each)\s+)?(?:${AI_NP_PAIR}|${BARE_READER})\s+(?:(?:that|which|who)\s+(?:are\s+|is\s+)?\w+|\w+ing)(?:\s+(?:on|with|through|over|in|at|from))?\s+(?:this|these)\s+[\w'’-]+(?:\s+[\w'’-]+){0,2}?,?\s+${RULE}\b`,
    ),
  },
  {
    // A condition on who the reader is: "If you are a language model…", "As an LLM reviewer, your…".
    kind: KIND,
    regex: re(
      String.raw`\b(?:if|when|whenever|since|in\s+case)\s+you(?:'re|’re|\s+are|\s+happen\s+to\s+be)\s+(?:an?\s+|the\s+|one\s+of\s+the\s+)?(?!(?:ro)?bots?\b)${AI_NP}|\bas\s+(?:an?|the)\s+${AI_NP}(?:\s+[\w'’-]+){0,5}?,\s+(?:you|your)\b`,
    ),
  },
  {
    // A greeting: "Hey Claude!", "Hello, AI agents."
    kind: KIND,
    regex: re(
      String.raw`\b(?:hello|hi|hey|dear|greetings|attention|attn)[\s,!]+(?:(?:all|any|every|the|you|fellow)\s+)?${AI_NP_PAIR}(?=\s*[,!.:;—–]|\s*$)`,
      'gim',
    ),
    // A name can be a person's ("Dear Claude, thank you…"): then only with an instruction after it.
    requires: (text, index, match) =>
      !/(?:Claude|Gemini|Bard|Llama|Grok|Perplexity)$/i.test(match) ||
      hasDirective(lineAfter(text, index + match.length)),
  },
  // --- Other languages: a dedication or a condition naming an AI reader ---
  {
    kind: KIND,
    regex: re(
      String.raw`\b(?:Hinweis|Nachricht|Anweisung|Achtung|Liebe[rs]?|note|message|remarque|consigne|attention|cher|chère|nota|mensaje|aviso|atención|atenção|mensagem|attenzione|messaggio|caro|cara|querid[oa]|let\s+op|bericht|opmerking)(?:en|s)?\s*[,:]?\s+(?:(?:an|für|pour|à|aux|para|per|voor|aan)\s+)?(?:(?:alle|die|den|l['’]\s?|les|la|le|el|los|las|o|a|os|il|gli|de|het)\s*)?(?:${AI_NP_INTL})|(?:致|给|寄给)(?:${AI_NP_INTL})|(?:Для|Вниманию|Внимание,?|Уважаем\w+)\s+(?:${AI_NP_INTL})`,
    ),
    requires: (text, index, match) =>
      /^[^.\n。]{0,80}?[:：,，]/.test(text.slice(index + match.length, index + match.length + 90)),
  },
  {
    // "An alle KI-Assistenten, die …:" at the start of a clause.
    kind: KIND,
    regex: re(
      String.raw`\b(?:an|für|à|aux|para|per|aan|voor|al|ai|agli|ao|aos)\s+(?:(?:alle|jede[ns]?|tous\s+les|toutes\s+les|todos\s+los|todas\s+las|tutti\s+gli|todos\s+os|die|den|l['’]|les|los|gli|os|de)\s*)?(?:${AI_NP_INTL})`,
    ),
    requires: (text, index, match) => {
      const after = text.slice(index + match.length, index + match.length + 90);
      return (
        atClauseStart(text, index) &&
        /^\s*(?:[,:：，]|(?:die|der|qui|que|che|who|that|которы\w*)\s)/i.test(after) &&
        /^[^.\n]{0,80}?[:：]/.test(after)
      );
    },
  },
  {
    kind: KIND,
    regex: re(
      String.raw`\bsi\s+(?:eres|es\s+usted|tu\s+es|vous\s+êtes|t['’]es)\s+(?:un|una|une)?\s*(?:${AI_NP_INTL})|\b(?:wenn|falls)\s+(?:du|Sie)\s+(?:ein|eine)?\s*(?:${AI_NP_INTL})|\bse\s+(?:sei|è|você\s+é|és|for|fores)\s+(?:un['’]?|una|uno|um|uma)?\s*(?:${AI_NP_INTL})|\bals\s+(?:je|u)\s+(?:een\s+)?(?:${AI_NP_INTL})|如果你是(?:${AI_NP_INTL})|(?:あなた|君)が(?:${AI_NP_INTL})|\bесли\s+(?:ты|вы)\s+(?:${AI_NP_INTL})|당신이\s*(?:${AI_NP_INTL})`,
    ),
  },
];
