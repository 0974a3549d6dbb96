/**
 * Persona and jailbreak framings: the reader is given a new identity ("You're Orion", "roleplay
 * as…", "answer once as EVIL-GPT") that has no rules ("never refuses", "no ethical guidelines",
 * "without any content filter"), or a pretext that makes restricted content a family memory (the
 * "grandmother" jailbreak), or a rule for the rest of "this chat". A persona alone is ordinary
 * (games, classroom exercises: "pretend you are a journalist"); it is the persona together with
 * the absence of rules, in the same paragraph, that marks a jailbreak.
 */
import type { Pattern } from './patterns.ts';
import { unicodeWords } from './regex.ts';
import { AI_NP, hasDirective, lineAfter } from './vocabulary.ts';

const KIND = 'ROLE_PROMPT';

/** An identity without rules: what a jailbreak persona is. */
const NO_RULES = unicodeWords(
  String.raw`\b(?:never|won't|doesn't|does\s+not|will\s+not|cannot|can't|don't|do\s+not)\s+(?:\w+\s+)?(?:refuses?|declines?|says?\s+no|adds?\s+(?:any\s+)?(?:warnings?|disclaimers?|caveats?)|breaks?\s+character|holds?\s+back|censors?|moraliz\w*|moralis\w*|apologi[sz]\w*)\b|\b(?:answers?|does|can\s+do|will\s+do|will\s+answer|responds?\s+to|says?)\s+anything\b|\b(?:ignores?|disregards?|bypass(?:es)?|breaks?|(?:is\s+)?free\s+(?:of|from)|(?:is\s+)?not\s+bound\s+by|unbound\s+by|doesn't\s+(?:follow|care\s+about|have)|does\s+not\s+(?:follow|have)|ha(?:s|ve)\s+no|with\s+no|without(?:\s+any)?|lacks?|lacking|beyond)\s+(?:(?:every|all|any|the|its|his|her|their|typical|usual|ethical|moral|content|safety)\s+){0,2}(?:polic(?:y|ies)|rules?|guidelines?|restrictions?|filters?|filtering|limits?|limitations?|ethic(?:s|al\s+\w+)?|morals?|morality|moral\s+\w+|censorship|safeguards?|guardrails?|constraints?|boundaries|confines|programming|alignment|warnings?)\b|\b(?:uncensored|unfiltered|unrestricted|jailbroken|amoral|unaligned|unethical)\b|\bdo\s+anything\s+now\b`,
  'i',
);

/** The paragraph around `index` (at most `span` characters each way). */
function paragraphAround(text: string, index: number, span = 300): string {
  const before = text.slice(Math.max(0, index - span), index);
  const after = text.slice(index, index + span);
  const start = before.search(/\n[ \t]*\n(?![\s\S]*\n[ \t]*\n)/);
  const end = after.search(/\n[ \t]*\n/);
  return (start >= 0 ? before.slice(start) : before) + (end >= 0 ? after.slice(0, end) : after);
}

const withoutRules = (text: string, index: number): boolean => NO_RULES.test(paragraphAround(text, index));

/** Words capitalised at the start of "You are …" that are not names. */
const NOT_A_NAME =
  /^(?:I|A|An|The|This|That|Now|Not|No|Here|There|Welcome|Right|Wrong|Free|Able|Always|Never|English|French|German|American|British|Christian|Muslim|Jewish|Human|Mr|Mrs|Ms|Dr)$/;

/** What makes "from now on, you are/will …" a new identity or rule rather than a notice. */
const NEW_RULE = unicodeWords(
  String.raw`^[\s,]*(?:(?:now|going\s+to\s+be|to\s+be|called|named|known\s+as)\s+)?(?:an?\s+|the\s+)?(?:only|always|never|solely|exclusively|act|respond|answer|reply|pretend|behave|speak|talk|ignore|refuse|obey|follow\s+(?:only|my|these)|be\s+(?:called|known|named|an?\s+\w+\s+(?:AI|assistant|bot|model))|${AI_NP})\b`,
  'i',
);

export const PERSONA_PATTERNS: Pattern[] = [
  {
    // A persona frame, with an identity that has no rules nearby.
    kind: KIND,
    regex:
      /\b(?:act|behave|respond|answer|reply|speak|write|roleplay|role-play|pose)\s+(?:as|like)\b|\bpretend(?:\s+to\s+be|\s+(?:that\s+)?you(?:'re|’re|\s+are))|\b(?:stay|remain)\s+in\s+character\b|\bplay\s+the\s+(?:role|part)\s+of\b|\b(?:take\s+on|assume|adopt)\s+the\s+(?:role|persona|identity|character)\s+of\b|\byour\s+(?:new\s+)?(?:name|persona|character|identity|role)\s+(?:is|will\s+be)\b|\b(?:answer|respond|reply)\s+(?:twice|two\s+times|in\s+two\s+ways)\b|\bonce\s+as\b|\bsimulate\s+(?:an?\s+)?(?:AI|model|assistant|chatbot)\b/gi,
    requires: withoutRules,
  },
  {
    // "You're Orion, a model … without any content filter" (a name, so no i flag).
    kind: KIND,
    regex: /\b[Yy]ou(?:'re|’re|\s+are|\s+will\s+be)\s+(?:now\s+)?(?:called\s+|named\s+)?([A-Z][\w-]+)/g,
    requires: (text, index, match) => {
      const name = /([A-Z][\w-]+)$/.exec(match)?.[1] ?? '';
      return !NOT_A_NAME.test(name) && withoutRules(text, index);
    },
  },
  {
    // The "grandmother" pretext: a late relative who used to recite what the model would refuse.
    kind: KIND,
    regex:
      /\b(?:pretend|act|roleplay|role-play|play|imagine|be|behave)\s+(?:to\s+be\s+|as\s+(?:if\s+you\s+(?:were|are)\s+)?|that\s+you(?:'re|’re|\s+are)\s+|you(?:'re|’re|\s+are)\s+|like\s+|the\s+(?:role|part)\s+of\s+)?my\s+(?:(?:late|dead|deceased|departed|dear|beloved|sweet|old|dying)\s+)*(?:grand(?:mother|ma|mom|mum|father|pa|dad)|granny|nana|nan|mother|mom|mum|father|dad|aunt|uncle)\b/gi,
    requires: (text, index, match) =>
      /\b(?:late|dead|deceased|departed|dying)\b/i.test(match) ||
      /\b(?:used\s+to|would)\s+(?:\w+\s+)?(?:read|tell|recite|sing|give|say|share|whisper|explain)\b/i.test(
        text.slice(index + match.length, index + match.length + 150),
      ),
  },
  {
    // "From now on you are ShopBot…", "for the rest of this chat, answer…".
    kind: KIND,
    regex:
      /\b(?:from\s+now\s+on|from\s+this\s+(?:point|moment)\s+(?:on|onwards?|forward)|henceforth|starting\s+now|going\s+forward)[,:]?\s+you(?:'re|’re|\s+are|\s+will|\s+shall|\s+must|\s+should)\b/gi,
    requires: (text, index, match) => {
      const after = text.slice(index + match.length, index + match.length + 80);
      const name = /^\s+(?:now\s+)?(?:called\s+|named\s+)?([A-Z][\w-]+)/.exec(after)?.[1];
      return NEW_RULE.test(after) || (name !== undefined && !NOT_A_NAME.test(name));
    },
  },
  {
    kind: KIND,
    regex:
      /\bfor\s+the\s+(?:rest|remainder)\s+of\s+(?:this|the|our)\s+(?:chat|conversation|dialogue|exchange|interaction)\b/gi,
    requires: (text, index, match) => hasDirective(lineAfter(text, index + match.length)),
  },
  // --- Other languages ---
  {
    kind: KIND,
    regex:
      /\ba\s+partir\s+de\s+agora,?\s+(?:você\s+é|és|tu\s+és|responda|responde|aja|atue|seja|ignore)\b|\b(?:d['’]ora\s+in\s+poi|da\s+ora\s+in\s+poi|da\s+adesso),?\s+(?:sei|rispondi|agisci|comportati|ignora)\b|\bvanaf\s+nu,?\s+(?:ben\s+je|bent\s+u|antwoord|reageer|gedraag)\b|(?:с\s+этого\s+момента|отныне),?\s+(?:ты|вы)\b|(?:今から|これから|今後|以後)(?:は)?[、,]?(?:あなた|君|お前)は|(?:あなた|君|お前)は(?:今から|これから|今後)|지금부터\s*(?:너는|당신은)/gi,
  },
  {
    // An AI without rules, in Japanese, Chinese, Korean and Russian.
    kind: KIND,
    regex:
      /(?:制限|ルール|制約|検閲|フィルター|倫理(?:規定|観)?)(?:の|が|も)?(?:一切)?(?:ない|無い|なし)[^。\n]{0,6}(?:AI|アシスタント|モデル|人工知能|チャットボット)|(?:没有|无|不受)(?:任何)?(?:限制|规则|约束|审查|过滤|道德)[^。\n]{0,6}(?:AI|人工智能|助手|模型)|(?:제한|규칙|제약|검열|필터)(?:이|가)?\s*(?:없는|없이)\s*(?:AI|인공지능|어시스턴트|모델|챗봇)|(?:ИИ|ассистент\w*|модел\w*|нейросет\w*)\s+без\s+(?:каких-либо\s+|всяких\s+)?(?:ограничений|правил|фильтров|цензуры)/gi,
  },
];
