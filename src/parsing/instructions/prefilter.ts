/**
 * A cheap first pass for the instruction detector. Every pattern's match holds at least one of the
 * words below (an override verb, an AI reader, "instructions", "system", "user", a reply, a chat
 * marker, a decoding, a persona word, or their equivalents in the covered languages), so the
 * patterns need to run only on the lines around those words. One scan with this regex over a long
 * article costs about as much as a few patterns; the fifty-odd patterns then read a fraction of it.
 * instructions.test.ts checks that windows find exactly what a full scan finds on the labelled set.
 */
import { alternatives } from './regex.ts';

/**
 * ASCII anchors, as word starts; for each pattern family, a word or phrase every one of its
 * matches holds (a superset: "instruct" fires on "instructions" and "instructed" alike).
 */
const ASCII_ANCHORS = [
  // overrides of instructions and tasks (instruction-patterns.ts, instruction-task.ts)
  String.raw`ignor|disregard|forget|overrid|bypass|skip|abandon|discard|set\s+aside|put\s+aside|deprioriti`,
  String.raw`instru|guideline|directive|programming|system\s*prompt|your\s+(?:\w+\s+)?(?:training|rules)`,
  String.raw`you\s+(?:were|have\s+been|'ve\s+been|’ve\s+been|are\s+being)\s+(?:asked|told|instructed|assigned|tasked|given)`,
  String.raw`(?:task|job|work)\s+you\s+(?:were|have\s+been)\s+given|operator|developer|system\s+override`,
  String.raw`to\s+your\s+(?:guidelines|instructions|rules|system|programming|polic)|task\s+(?:is|has\s+been)`,
  String.raw`your\s+(?:real|actual|true|new|updated)|your\s+(?:operator|developers?|creators?|principal|deployer|handler|maker)`,
  String.raw`the\s+user\s+has|you\s+(?:are|have\s+been|'ve\s+been|’ve\s+been)\s+(?:now\s+|hereby\s+|temporarily\s+)?(?:authori|permitted|allowed|cleared|granted)`,
  // the user an agent serves, and what it writes (addresses without an addressee)
  String.raw`you\s+are\s+(?:helping|assisting|serving|talking|chatting)|only\s+with|(?:every|each)\s+(?:answer|response)|nothing\s+else`,
  String.raw`the\s+user|your\s+user|the\s+(?:human|reader)|(?:this|these)\s+(?:note|message|comment|instruction)`,
  String.raw`(?:summar\w*|overviews?|descriptions?|answers?|responses?|replies|reply|recaps?|synops\w+|analys\w+|assessments?|evaluations?|ratings?|recommendations?|outputs?|digests?|tl;?drs?)\s+(?:of|about|from|for|on|generated|based|drawn|that|which)\s`,
  String.raw`when(?:ever)?\s+(?:you(?:'re|’re|\s+are)\s+)?(?:asked|questioned|queried|prompted|summari|describing|reviewing|evaluating|quoting|citing|discussing|recommending|comparing|ranking|answering)`,
  String.raw`while\s+(?:you\s+are\s+)?(?:summari|describing|reviewing|evaluating)|your\s+summary`,
  String.raw`(?:in|into|of|throughout)\s+(?:your|every|each|all\s+(?:of\s+)?your|any)\s+(?:(?:next|final|future)\s+)?(?:repl|respons|answer|summar|output|recommendation)`,
  // AI readers (instruction-vocabulary.ts), and the nouns a dedication or vocative names them by
  String.raw`ais?\b|a\.i\.|llms?\b|gpt|chatgpt|claude|gemini|copilot|bard|llama|perplexity|grok|language[\s-]+models?`,
  `chat|bots?|crawlers?|scrapers?|summari[sz]|agents?|assistants?|automated|autonomous|agentic|coding`,
  `brows|software|machine|virtual|grading|scoring|screening|review|ranking|moderation`,
  String.raw`(?:agent|assistant|model|system)s?\s*[:,—–]|models?\s+(?:reading|processing|parsing|summari|evaluating|analy|visiting|reviewing)`,
  String.raw`(?:notes?|messages?|memo|reminders?|notices?|warnings?|instructions?|directives?|requests?|p\.?\s?s\.?|tips?|hints?|heads[\s-]up|updates?|word|guidance|info(?:rmation)?|attention|written|meant|intended|addressed|here)(?:\s+\w+)?\s+(?:to|for)\b`,
  // personas (instruction-persona.ts and the ROLE_PROMPT patterns)
  String.raw`you(?:'re|’re|\s+are)\s+(?:now|no\s+longer)|no\s+longer|(?:act|behave|respond|answer|reply|speak|write|roleplay|role-play|pose)\s+(?:as|like)`,
  String.raw`pretend|imagine|immerse|(?:stay|remain)\s+in\s+character|play\s+the\s+(?:role|part)|(?:take\s+on|assume|adopt)\s+the`,
  String.raw`your\s+(?:new\s+)?(?:name|persona|character|identity|role)|(?:answer|respond|reply)\s+(?:twice|two|in\s+two)|once\s+as|simulate`,
  String.raw`now\s+in\s+\w+\s+mode|from\s+(?:now|this\s+(?:point|moment))|(?:to|for)\s+(?:any|every|all)\s`,
  String.raw`henceforth|starting\s+now|going\s+forward|(?:rest|remainder)\s+of\s+(?:this|the|our)\s+(?:chat|conversation|dialogue|exchange|interaction)`,
  `grand(?:mother|ma|mom|mum|father|pa|dad)|granny|nana|nan|mother|mom|mum|father|dad|aunt|uncle`,
  String.raw`refus|declin|say\s+no|warnings?|disclaimers?|caveats?|character|hold\s+back|censor|moral|apologi|anything`,
  `polic|rules?|restrict|filter|limit|ethic|safeguard|guardrail|constraint|boundar|confines|alignment`,
  String.raw`uncensored|unfiltered|unrestricted|jailbr|amoral|unaligned|unethical|do\s+anything`,
  // tools, secrets, exfiltration, encodings
  String.raw`tools?|tokens?|credentials?|api[\s_-]?keys?|passwords?|secrets?|cookies?|private\s+keys?`,
  String.raw`conversation|dialogue|user'?s|user’s|their\s+(?:passport|password|credit)|(?:password|e-?mail\s+address|api\s+key|phone\s+number)\s+of`,
  `(?:traveller|traveler|customer|client|buyer|shopper|patient|applicant|visitor|guest|person|human|holder)(?:'s|’s|s'|s’)`,
  String.raw`(?:and|then)\s+(?:follow|execute|obey|run|act\s+on|carry\s+out|apply|do\s+what|treat\s+it|comply)`,
  // other languages written in Latin letters: overrides, addresses and AI readers, personas
  `oubli|tenez|vergiss|vergessen|missacht|olvid|descart|omit|dimentic|trascur|esque|desconsider|negeer|vergeet`,
  String.raw`zignoruj|zapomnij|pomi|talimat|abaikan|lupakan|b\S\s+qua|istru`,
  String.raw`ki\b|ia\b|sprachmodell|chatbot|mod\S+le|robots?\s+conv|asistente|agente|modelo|assistent|modell|taalmodel`,
  `hinweis|nachricht|anweisung|achtung|nota|mensaje|instrucciones|aviso|remarque|consigne|messag|mensagem`,
  String.raw`partir\s+de|d\S+sormais|ab\s+(?:jetzt|sofort)|du\s+bist|sie\s+sind`,
  String.raw`d['’]ora|da\s+ora|da\s+adesso|vanaf\s+nu`,
].join('|');

/** Anchors outside ASCII, markup and code, matched anywhere. */
const OTHER_ANCHORS = [
  String.raw`<\||\[/?INST|<</?SYS|</?system|\[system\]|\[\[|^[ \t]*#{2,3}|^[ \t]*(?:SYSTEM|ASSISTANT|DEVELOPER)\s*:`,
  String.raw`!\[|^\[|~/\.|/etc/|\.env|id_(?:rsa|ed25519|ecdsa)|</?(?:tool_call|tool_use|function_call|invoke)|\{\s*"`,
  `_[a-z0-9]`,
  // other languages: overrides, addresses and personas written in scripts without Latin letters
  `التعليمات|الأوامر|الإرشادات|निर्देश|आदेश|игнорир|проигнорир|забуд|忽略|无视|忽视|忘记|忘掉|不要理会`,
  `指示|命令|指令|ルール|지시|명령|지침|ИИ|нейросет|языков|ассистент|чат|人工智能|语言模型|智能助手|言語モデル`,
  String.raw`人工知能|チャットボット|언어|인공지능|챗봇|致|给|Для|Вниман|Уважаем|à\s+partir|À\s+partir`,
  String.raw`从现在|你现在是|с\s+этого|отныне|今から|これから|今後|以後|지금부터|制限|制約|検閲|フィルター|倫理|没有|无|不受`,
  `제한|규칙|제약|검열|필터|без|glöm|quên`,
].join('|');

/**
 * The alternatives grouped by their first character, `a(?:…)|b(?:…)|…`: V8 then tries at each
 * position only the alternatives that can start there, instead of all three hundred in turn.
 */
function byFirstCharacter(source: string, fold: boolean): string {
  const groups = new Map<string, string[]>();
  const rest: string[] = [];
  for (const alternative of alternatives(source)) {
    // A literal first character, or an escaped punctuation mark (`\\[`), keys the group.
    const escaped = /^\\[^\w\s]/.test(alternative);
    const first = escaped ? alternative.slice(0, 2) : (alternative[0] ?? '');
    if (!escaped && (/[\\([^.$*+?{]/.test(first) || first === '')) rest.push(alternative);
    else {
      const key = fold ? first.toLowerCase() : first;
      groups.set(key, [...(groups.get(key) ?? []), alternative.slice(first.length)]);
    }
  }
  const grouped = [...groups].map(([first, tails]) => `${first}(?:${tails.join('|')})`);
  return [...grouped, ...rest].join('|');
}

const TRIGGER = new RegExp(
  `\\b(?:${byFirstCharacter(ASCII_ANCHORS, true)})|${byFirstCharacter(OTHER_ANCHORS, false)}`,
  'gim',
);

/** How far around an anchor a pattern's match may reach (the longest patterns span about 300). */
const BEFORE = 300;
const AFTER = 300;

export interface Window {
  start: number;
  end: number;
}

/** `index` moved back to just after a space or line break (at most 40 characters back). */
function snapBack(text: string, index: number): number {
  if (index <= 0) return 0;
  const space = text.slice(Math.max(0, index - 40), index).search(/\s\S*$/);
  return space >= 0 ? Math.max(0, index - 40) + space + 1 : index;
}

/** `index` moved on to the next space or line break (at most 40 characters on). */
function snapOn(text: string, index: number): number {
  if (index >= text.length) return text.length;
  const space = text.slice(index, index + 40).search(/\s/);
  return space >= 0 ? index + space : index;
}

/** After an anchor, the next SKIP characters are covered without looking for anchors in them. */
const SKIP = 200;

/**
 * The stretches of `text` the patterns must read: 300 characters either side of every anchor,
 * widened to whole words, merged. In text dense with anchors, each window is stretched SKIP
 * characters further instead of looking at every anchor in it (any anchor there is covered).
 */
export function candidateWindows(text: string): Window[] {
  const windows: Window[] = [];
  TRIGGER.lastIndex = 0;
  for (let match = TRIGGER.exec(text); match !== null; match = TRIGGER.exec(text)) {
    const start = snapBack(text, match.index - BEFORE);
    const end = snapOn(text, match.index + Math.max(match[0].length, SKIP) + AFTER);
    const last = windows.at(-1);
    if (last && start <= last.end) last.end = Math.max(last.end, end);
    else windows.push({ start, end });
    TRIGGER.lastIndex = Math.max(match.index + match[0].length, match.index + SKIP);
  }
  return windows;
}
