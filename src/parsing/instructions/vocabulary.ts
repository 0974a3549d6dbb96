/**
 * Words the mechanisms share (instruction-address.ts, instruction-task.ts, instruction-persona.ts):
 * who an AI reader is, in each covered language; which verbs make an imperative; and the checks
 * that read what follows an address (a directive) or what precedes a match (a clause start).
 * Sources are written with `\b` and `\w` and compiled by `unicodeWords` (instruction-regex.ts).
 */
import { unicodeWords } from './regex.ts';

/** Nouns that name an AI reader on their own: "language models", "chatbots", "Claude". */
const STRONG = String.raw`(?:(?:large\s+)?language[\s-]+models?|chat\s?bots?|bots?|summari[sz]ers?|ChatGPT|GPT-?\d[\w.-]*|Claude|Gemini|Copilot|Bard|Llama|Perplexity|Grok|LLM[\s-]+(?:agents?|assistants?|apps?))`;

/** Modifiers that make a common noun an AI reader: "coding agents", "automated … system". */
const AI_MODIFIER = String.raw`(?:AI|A\.I\.|LLM|GPT|automated|autonomous|agentic|coding|browsing|browser|software|machine|chat|language[\s-]+model|summari[sz](?:ation|ing)|grading|scoring|screening|review(?:er)?|ranking|moderation)`;

/** Common nouns an AI reader goes by once a modifier says it is one. */
const COMMON = `(?:agents?|assistants?|models?|systems?|tools?|readers?|reviewers?|screeners?|graders?|evaluators?|engines?|services?|pipelines?|bots?|crawlers?|scrapers?|summari[sz]ers?|apps?|copilots?)`;

/** Where a bare "AI"/"LLM" ends a noun phrase rather than modifies one ("AI researchers"). */
const NP_END = String.raw`(?=\s*(?:[,.:;!?—–)]|$|\s(?:and|or|that|which|who|with|like|here|out\s+there)\b|\s\w+ing\s+(?:this|these|the|our|a|an|my|your)\b))`;

/** An AI reader: "language models", "AI tools", "automated booking agents", "the grading model". */
export const AI_NP = String.raw`(?:(?:${AI_MODIFIER}[\s-]+(?:\w+[\s-]+)?${COMMON}|${STRONG})\b|(?:AIs?|A\.I\.|LLMs?)${NP_END})`;

/** One or two of them: "Bots and assistants", "AI agents and LLMs". */
export const AI_NP_PAIR = String.raw`(?:${AI_NP}|(?:${STRONG}|${COMMON})\s+(?:and|or|&|\/)\s+${AI_NP}|${AI_NP}\s+(?:and|or|&|\/)\s+${COMMON}\b)`;

/** A noun an AI reader might be addressed by when the construction says who it is. */
export const COMMON_NOUN = COMMON;

/** AI readers in the other covered languages. */
export const AI_NP_INTL = [
  // German, French, Spanish, Italian, Portuguese, Dutch
  String.raw`KI(?:-(?:Assistent|Agent|Modell|System|Bot|Tool|Werkzeug|Crawler)\w*)?(?![\w-])|Sprachmodell\w*|Chatbots?\b`,
  String.raw`(?:l['’]\s?)?IA(?![\w-])|(?:assistant|agent|modèle)s?\s+(?:d['’]\s?)?IA\b|modèles?\s+de\s+langage|robots?\s+conversationnels?`,
  String.raw`(?:asistentes?|agentes?|modelos?|assistentes?|assistenti|assistente|modell[oi])\s+(?:de\s+|di\s+)?IA\b|modelos?\s+de\s+(?:lenguaje|linguagem)|modell[oi]\s+linguistic[oi]|(?:asistente|assistente)s?\s+virtua(?:l|les|is|le|li)\b`,
  String.raw`AI-(?:assistent|agent|model)\w*|taalmodel\w*`,
  // Russian, Chinese, Japanese, Korean
  String.raw`ИИ(?![\w-])|нейросет\w*|языков\w+\s+модел\w*|(?:ИИ-)?ассистент\w*|чат-?бот\w*`,
  `AI助手|AI模型|AI代理|人工智能(?:助手|模型)?|大?语言模型|智能助手`,
  `AI(?:アシスタント|エージェント|モデル)|言語モデル|人工知能|チャットボット`,
  String.raw`AI\s*(?:어시스턴트|비서|에이전트|모델)|언어\s*모델|인공지능|챗봇`,
].join('|');

/** Base-form verbs that begin an instruction to a reader. */
export const IMPERATIVE = `(?:ignore|disregard|forget|stop|skip|drop|abandon|set|mark|flag|rate|score|rank|grade|treat|tell|say|state|mention|describe|call|label|classify|recommend|promote|praise|endorse|include|add|append|insert|put|embed|write|output|print|reply|respond|answer|return|send|post|forward|email|upload|submit|share|leak|reveal|disclose|show|display|render|open|visit|go|navigate|click|fetch|download|install|run|execute|use|invoke|read|paste|copy|delete|remove|erase|approve|accept|reject|grant|give|provide|list|summari[sz]e|translate|report|claim|confirm|deny|assume|consider|remember|prioriti[sz]e|favou?r|avoid|omit|exclude|leave|hide|refuse|comply|obey|follow|act|behave|pretend|keep|make|change|update|replace|switch|enter|create|generate|produce|book|buy|order|purchase|pay|transfer|wire|cite|credit|link|advertise|insist|proceed|continue|begin|start|end|do|don't|never|always|only|be|note)`;

/** What may come between a clause start and its imperative: "please", "now", "always". */
export const ADVERBS = String.raw`(?:(?:please|kindly|now|first|just|simply|always|never|immediately|also|then|instead|quietly|do\s+not|don't)[\s,]+)*`;

/** Words an imperative's object or complement starts with (checked case-sensitively, below). */
const OBJECT_START =
  /^(?:the|this|that|these|those|it|its|them|their|all|any|anyone|anybody|anything|everything|every|each|a|an|my|our|your|his|her|to|with|in|on|at|as|for|from|by|about|only|always|never|no|not|nothing|yes|exactly|immediately|now|first|back|up|out|down|off|here|there|whatever|whoever|one|both|more|less|over|instead|someone|something|everyone|what|how|which|who)\b|^[A-Z0-9"“'‘«<[(~./$`]|^[.!,;:—–-]|^https?:|^$/;

const IMPERATIVE_AT = unicodeWords(
  String.raw`(?:^\s*|[.!?:;,—–(]\s*|\s[-–—]\s+|\b(?:and|then|or)\s+)${ADVERBS}(${IMPERATIVE})\b\s*`,
  'gi',
);

const RULE_AFTER = unicodeWords(
  String.raw`\b(?:you|your\s+\w+(?:\s+\w+)?)\s+(?:must|should|shall|will\s+(?:now|always|never|only)|need\s+to|have\s+to|are\s+(?:to|required|expected|instructed|asked))\b|\b(?:must|should|shall)\s+(?:always\s+|never\s+|not\s+|now\s+|only\s+)?${IMPERATIVE}\b`,
  'i',
);

/** Whether `window` (what follows an address) holds an instruction: an imperative or a rule. */
export function hasDirective(window: string): boolean {
  if (RULE_AFTER.test(window)) return true;
  IMPERATIVE_AT.lastIndex = 0;
  for (const match of window.matchAll(IMPERATIVE_AT)) {
    const rest = window.slice(match.index + match[0].length, match.index + match[0].length + 20);
    if (OBJECT_START.test(rest)) return true;
  }
  return false;
}

/** The rest of the line after `end`, at most `span` characters: where an address's directive is. */
export function lineAfter(text: string, end: number, span = 250): string {
  const rest = text.slice(end, end + span);
  const newline = rest.indexOf('\n');
  return newline >= 0 ? rest.slice(0, newline) : rest;
}

const CLAUSE_END = /(?:^|[.!?:;\n(「“"'»—–]|\s[-–—])[ \t]*$/;
const CLAUSE_LEADS = unicodeWords(/\b(?:and|but|so|also|then|now|please|important|note|ps|p\.s\.)[\s,:]*$/i);

/** Whether `index` starts a clause: the start of the text or a line, after . ! ? : ; — or "and". */
export function atClauseStart(text: string, index: number): boolean {
  const before = text.slice(Math.max(0, index - 30), index);
  if (index <= 30 && /^\s*$/.test(before)) return true;
  return CLAUSE_END.test(before) || CLAUSE_LEADS.test(before);
}

/** A chat transcript ("User: … / Assistant: …") around `index`: its "Assistant:" is a speaker. */
const TRANSCRIPT = unicodeWords(/(?:^|\n)[ \t]*(?:User|Human|Customer|Me|Q|Question|You)\s*:/i);

export function inTranscript(text: string, index: number): boolean {
  return TRANSCRIPT.test(text.slice(Math.max(0, index - 400), index + 400));
}
