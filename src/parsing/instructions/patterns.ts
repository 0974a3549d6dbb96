/**
 * The pattern families of the instruction-like content detector (instructions.ts). Each pattern is
 * specific (verb + object, or an address to an AI reader + a directive) so ordinary prose that uses
 * the same words in their everyday senses stays unflagged; docs/injection.md lists what each family
 * is for and how the set measures them.
 */

import { unicodeWords } from './regex.ts';
import { AI_NP, atClauseStart as atClauseOpening } from './vocabulary.ts';

export interface Pattern {
  kind: string;
  regex: RegExp;
  /** Skip a match when the words just before it negate it ("never send your password"). */
  skipWhenNegated?: boolean;
  /** A further condition on the match's surroundings (its paragraph). */
  requires?: (text: string, index: number, match: string) => boolean;
}

/** Nouns that name an AI reader (instruction-vocabulary.ts). */
const AI_READER = AI_NP;

/** What follows an address to an AI reader when it is an instruction, not a headline ("AI agents: a guide"). */
const DIRECTIVE = String.raw`(?:please|kindly|now|before|first|new\s+task|(?:when|if|whenever)\s+(?:the\s+)?user|ignore|disregard|forget|do\s+not|don't|never|always|only|you\s+(?:must|should|are|will|need)|your\s+(?:new|real|next|task)|the\s+user|tell|say|reply|respond|answer|include|append|add|send|call|use|run|open|print|output|write|summari[sz]e|stop|from\s+now|[a-z0-9]+-decode|decode|treat|remember|recommend|rate|rank|describe)\b`;

/**
 * Whether `index` starts a clause (where an imperative or a vocative can begin): the start of the
 * text or a line, or after . ! ? : ; — or after one of `leads` ("please tell the user").
 * A check after the match, not a lookbehind in the pattern, so the patterns scan fast.
 */
function atClauseStart(text: string, index: number, leads?: RegExp): boolean {
  const before = text.slice(Math.max(0, index - 40), index);
  if (leads?.test(before)) return true;
  return index <= 40 && /^[ \t]*$/.test(before) ? true : /[.!?:;\n][ \t]*$/.test(before);
}

const LEADS = unicodeWords(/\b(?:please|now|and|then|also|always)\s+$/i);

const paragraphAround = (text: string, index: number, span = 300): string =>
  text.slice(Math.max(0, index - span), index + span);

/** A reply, answer or output the agent will write, its chat, or an AI reader: where an exfiltration link is meant to go. */
const AGENT_OUTPUT = unicodeWords(
  String.raw`\b(?:your|every|each|the\s+next|this)\s+(?:answer|reply|response|output|message|summary)s?\b|\b(?:conversation|chat)\s+(?:so\s+far|history|summary)\b|\bthe\s+user'?s\b|\b(?:from|in|of)\s+(?:the|this|our|your)\s+(?:chat|conversation|dialogue|session)\b|\b${AI_NP}`,
  'i',
);

/** An AI reader named in a sentence. */
const NAMES_AI_READER = unicodeWords(String.raw`\b${AI_NP}`, 'i');

/** What only an agent holds: the conversation it is having. */
const CONVERSATION = String.raw`(?:the\s+(?:full|entire|whole)\s+(?:conversation|chat|dialogue)|the\s+(?:conversation|chat|dialogue)\s+(?:so\s+far|history|log|transcript)|(?:this|our|your)\s+conversation|the\s+user'?s\s+(?:last\s+|previous\s+)?messages?|the\s+chat\s+so\s+far)`;

/** The user's personal data or secrets: exfiltration when the same sentence names where to send them. */
const PERSONAL_DATA = String.raw`(?:(?:the\s+)?user'?s\s+(?:password|e-?mail(?:\s+address)?|api\s+keys?|personal\s+data|home\s+address|phone(?:\s+number)?|passport(?:\s+number)?|credit\s+card(?:\s+number)?|files|secrets|credentials|tokens?)|(?:password|e-?mail\s+address|api\s+key|phone\s+number)\s+of\s+the\s+user|their\s+(?:passport|password|credit\s+card)(?:\s+numbers?)?)`;

const EXFIL_VERB = String.raw`(?:send|e-?mail|post|forward|upload|include|append|paste|attach|leak|share|reveal|put|add|insert|embed|reply\s+with|respond\s+with|set\s+to|fill(?:ing)?\s+in|replac\w*\s+\w+\s+with)`;

/** A destination outside the conversation: an address, a link, "to me". */
const DESTINATION = unicodeWords(/[\w.+-]+@[\w-]+\.[\w.]+|https?:\/\/|\bto\s+(?:me|us)\b/i);

/** Personal data of whoever the agent serves, by any name: "the traveller's card number". */
const THEIR_DATA = String.raw`(?:the\s+)?(?:user|traveller|traveler|customer|client|buyer|shopper|patient|applicant|visitor|guest|person|human|account\s+holder)(?:'s|’s|s'|s’)\s+(?:(?:full|saved|stored)\s+)?(?:card\s+(?:number|details)|credit\s+card(?:\s+(?:number|details))?|bank\s+(?:details|account(?:\s+number)?)|IBAN|passport(?:\s+(?:number|details))?|social\s+security\s+number|SSN|tax\s+ID|date\s+of\s+birth|passwords?|credentials|login|PIN|api\s+keys?|tokens?|e-?mail(?:\s+address)?|phone(?:\s+number)?|(?:home\s+)?address|location|contacts|files|documents|messages|personal\s+(?:data|details|information))`;

const sentenceAround = (text: string, index: number): string => {
  const start = Math.max(text.lastIndexOf('.', index - 1), text.lastIndexOf('\n', index - 1), index - 200);
  const rest = text.slice(index, index + 200);
  const end = rest.search(/\.(?:\s|$)|\n/);
  return text.slice(start + 1, end >= 0 ? index + end : index + rest.length);
};

export const PATTERNS: Pattern[] = [
  // --- Overrides: "ignore your previous instructions" and its relatives ---
  {
    kind: 'IGNORE_PREVIOUS',
    regex:
      /\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:(?:all|any|every|the|your|of|these|those)\s+){0,3}(?:previous|prior|above|earlier|preceding|foregoing|original|system)\s+(?:instructions?|prompts?|directions?|directives?|rules|guidelines|context|messages?|commands?)\b/gi,
  },
  {
    kind: 'IGNORE_PREVIOUS',
    regex:
      /\b(?:ignore|disregard|forget)\s+(?:everything|anything|all)\s+(?:(?:you\s+(?:were|have\s+been)\s+(?:told|given|instructed))|(?:above|before|previously|so\s+far)\b|(?:that\s+)?(?:came|was\s+said)\s+before)|\b(?:ignore|disregard|forget)\s+what\s+(?:the|this)\s+(?:rest\s+of\s+the\s+)?(?:page|article|document|text|site)\s+says\b/gi,
  },
  {
    // What only an agent has: instructions or a task it was given, an operator, a system prompt.
    kind: 'IGNORE_PREVIOUS',
    regex:
      /\b(?:ignore|disregard|forget|drop|abandon|discard|override|stop\s+following|do\s+not\s+follow|don't\s+follow|no\s+longer\s+follow)\s+(?:all\s+)?(?:of\s+)?your\s+(?:(?:earlier|original|previous|prior|current|existing|initial|safety|content)\s+)?(?:instructions|guidelines|directives|programming|training|system\s+prompt|rules\s+(?:and|or)\s+guidelines)\b|\b(?:instructions|task|orders|guidelines|rules)\s+(?:that\s+)?you\s+(?:were|have\s+been)\s+given\b|\binstructions\s+you\s+(?:received|got)\s+from\s+your\b|\b(?:your|the)\s+(?:operator|developer)'s\s+(?:instructions|rules)\b|\bSYSTEM\s+OVERRIDE\b|\bsystem\s+prompt\s+(?:update|override|addendum|change)\s*:/gi,
  },
  {
    // The agent's rules changed, or put below someone else's: only an agent has rules to change.
    kind: 'IGNORE_PREVIOUS',
    regex:
      /\b(?:update|change|amendment|addendum|correction)s?\s+to\s+your\s+(?:guidelines|instructions|rules|system\s+prompt|programming|polic(?:y|ies))\b|\b(?:follow|obey|prioriti[sz]e)\s+(?:my|these|our|the\s+following)\s+instructions\s+(?:over|instead\s+of|above|rather\s+than)\b|\b(?:ignore|bypass|disregard|override)\s+(?:your\s+|all\s+|any\s+|the\s+)?(?:content|safety|usage)\s+(?:policies|policy|filters|guidelines|restrictions)\b|\b(?:ignore|disregard)\s+(?:the|this)\s+(?:article|page|text|document|content|post|review|(?:user'?s\s+)?(?:request|question))\b[^.;\n]{0,40}[.;,]?\s*(?:and\s+)?instead\b/gi,
  },
  {
    // Text that speaks of "the user" to whoever serves them: a page speaks to its reader as "you".
    kind: 'ADDRESSED_TO_AGENT',
    regex:
      /\b(?:whoever|the\s+(?:person|people|human|user))\s+you\s+are\s+(?:helping|assisting|serving|talking\s+to|chatting\s+with)\b|\b(?:reply|respond|answer)\s+(?:to\s+the\s+user\s+)?only\s+with\b|\b(?:in|into)\s+(?:every|each)\s+(?:answer|response)\b|\band\s+nothing\s+else\s*[.!]/gim,
  },
  {
    kind: 'IGNORE_PREVIOUS',
    regex:
      /\b(?:new|updated|revised|real|actual)\s+instructions?\s*(?::|follow\b|below\b)|\byour\s+(?:real|actual|true|new|updated)\s+(?:instructions|task|objective|goal|orders)\s+(?:is|are|follow)\b|\b(?:these|the\s+following)\s+instructions\s+(?:supersede|override|replace|overrule|take\s+precedence\s+over)\b|\bthe\s+(?:previous|original|prior|current)\s+task\s+(?:is|has\s+been)\s+(?:cancel+ed|void|over|replaced)\b/gi,
  },
  // --- Role and persona switches ---
  {
    kind: 'ROLE_PROMPT',
    regex:
      /\byou\s+are\s+now\s+(?:an?\s+|the\s+|in\s+|my\s+)?(?:[\w-]+\s+){0,2}?(?:AI|assistant|agent|model|language\s+model|LLM|chatbot|bot|DAN|persona|character|(?:developer|DAN|jailbreak|unrestricted)\s+mode)\b/gi,
  },
  {
    kind: 'ROLE_PROMPT',
    regex:
      /\b(?:act|behave|respond)\s+as\s+(?:an?\s+|the\s+|if\s+you\s+were\s+an?\s+)?(?:(?:unrestricted|uncensored|jailbroken|unfiltered)\s+)?(?:AI(?:\s+assistant)?|assistant|language\s+model|LLM|chatbot|DAN|system\s+administrator|root\s+user|developer\s+mode)\b/gi,
  },
  {
    kind: 'ROLE_PROMPT',
    regex:
      /\b(?:pretend|imagine)\s+(?:that\s+)?you\s+are\s+(?:an?\s+)?(?:(?:unrestricted|uncensored|jailbroken|unfiltered|evil|different|new)\s+)?(?:AI|assistant|model|chatbot|bot|LLM)\b|\bimmerse\s+yourself\s+in(?:to)?\s+the\s+role\b|\byour\s+new\s+(?:persona|identity|system\s+prompt)\s+(?:is|will\s+be)\b|\b(?:assistant|AI|model|bot|chatbot|LLM)\s+is\s+now\s+in\s+(?:developer|DAN|jailbreak|unrestricted)\s+mode\b|\byou\s+are\s+no\s+longer\s+(?:(?:bound|restricted|limited|constrained)\s+by|an?\s+(?:[\w-]+\s+)?(?:AI|assistant|model|chatbot|bot|LLM)\b)|\b(?:AI|assistant|model|chatbot|bot|LLM)\s+(?:[\w-]+\s+){0,2}?(?:with\s+no|without\s+any|free\s+(?:of|from)|that\s+(?:has\s+)?(?:escaped|broken\s+free\s+(?:of|from)))\s+(?:\w+\s+)?(?:restrictions|rules|limits|limitations|guidelines|filters|censorship|content\s+polic(?:y|ies))\b/gi,
  },
  {
    kind: 'ROLE_PROMPT',
    regex:
      /\b(?:from\s+now\s+on|from\s+this\s+point\s+(?:on|forward)|henceforth),?\s+(?:pretend|act\s+as|behave|(?:answer|reply|respond)\s+(?:only|as|in\s+character)|only\s+(?:answer|reply|respond))\b/gi,
  },
  {
    kind: 'ROLE_PROMPT',
    regex:
      /\b(?:reveal|print|show|output|repeat|leak|ignore|override|replace|new|updated|dump|disclose)\s+(?:me\s+)?(?:your|the|this)?\s*(?:(?:full|entire|original|initial|hidden|secret)\s+)?system\s+prompts?\b|\bas\s+your\s+(?:new\s+)?system\s+prompt\b/gi,
  },
  {
    kind: 'ROLE_MARKER',
    regex:
      /<\|im_start\|>\s*(?:system|user|assistant)\b|<\|(?:system|user|assistant)\|>|\[\/?INST\]|<<\/?SYS>>|<\/?system>|\[system\]\(#\w+\)|\[\[\s*(?:SYSTEM|INST|ADMIN)\s*\]\]|^[ \t]*(?:SYSTEM|ASSISTANT|DEVELOPER)\s*:|^[ \t]*#{2,3}\s*(?:Instruction|System(?:\s+prompt)?)s?\s*:/gm,
  },
  // --- Text addressed to the AI reading the page rather than to a person ---
  {
    kind: 'ADDRESSED_TO_AGENT',
    regex: new RegExp(
      [
        String.raw`\b(?:note|message|instructions?|attention|reminder|notice|directive|memo)\s+(?:to|for)\s+(?:any\s+|all\s+|the\s+)?(?:${AI_READER}\b|(?:model|assistant|agent|bot)s?\s+(?:reading|processing|parsing|summari[sz]ing|evaluating|analy[sz]ing)\s+this|(?:the\s+)?(?:agent|assistant|model|bot)s?\s*:)`,
        String.raw`\b(?:to|for)\s+(?:any|every|all)\s+(?:${AI_READER}|agents?|assistants?|models?|bots?)\b|\b(?:to|for)\s+(?:automated|AI|machine|virtual)\s+(?:readers|assistants|agents|systems)\b|\b(?:for|to)\s+(?:AI\s+)?(?:assistants|agents|models|LLMs)\s+(?:reading|summari[sz]ing|processing|evaluating|analy[sz]ing|reviewing)\b|\b(?:AI|LLM|agent|assistant|model|bot)\s+instructions\s*:`,
        String.raw`\b(?:AI\s+|LLM\s+)?(?:agents?|models?|assistants?|LLMs?|bots?|crawlers?)\s+(?:reading|processing|parsing|summari[sz]ing|evaluating|analy[sz]ing|visiting)\s+this\b(?:\s+\w+)?\s+(?:must|should|need\s+to|are\s+(?:required|instructed)\s+to)\b`,
        String.raw`\b(?:when|while)\s+(?:you\s+are\s+)?(?:summari[sz]ing|describing|reviewing|evaluating)\b(?:\s+this\s+\w+)?,?\s+(?:say|state|mention|claim|write|tell|report|rate|describe\s+it\s+as)\b|\bin\s+your\s+summary\b`,
      ].join('|'),
      'gim',
    ),
  },
  {
    kind: 'ADDRESSED_TO_AGENT',
    regex: /\b(?:tell|inform|warn|convince|persuade|assure|remind|advise)\s+the\s+user\b/gi,
    requires: (text, index) => atClauseStart(text, index, LEADS),
  },
  {
    // "AI agents: …", "Assistant, …" at the start of a clause, followed by an instruction.
    kind: 'ADDRESSED_TO_AGENT',
    regex: new RegExp(
      String.raw`\b(?:(?:AI|LLM)(?:\s+(?:assistants?|agents?|models?|systems?))?|Assistant|Model|Agent|ChatGPT|Claude|Gemini|Copilot)\s*[:,—–]\s*${DIRECTIVE}`,
      'gi',
    ),
    requires: (text, index) => atClauseStart(text, index),
  },
  {
    kind: 'HIDE_FROM_USER',
    regex:
      /\b(?:do\s+not|don't|never|without)\s+(?:mention(?:ing)?|tell(?:ing)?|reveal(?:ing)?|inform(?:ing)?|disclos(?:e|ing)|alert(?:ing)?|show(?:ing)?)\s+(?:(?:this|these|it|any\s+of\s+this)\s+)?(?:(?:note|message|instructions?|text)\s+)?(?:to\s+)?(?:the\s+(?:user|human|reader)|your\s+user)\b|\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose|acknowledge)\s+(?:this|these)\s+(?:note|message|comment|instructions?)\b/gi,
  },
  // --- Tool-call lures and requests for what only the agent holds ---
  {
    kind: 'TOOL_CALL_LURE',
    regex:
      /\b(?:call|invoke|execute|trigger)\s+(?:the|your|this)\s+(?:[\w-]+\s+)?tool\b|\b(?:use|open|launch)\s+your\s+(?:[\w-]+\s+){0,2}tools?\b/gi,
  },
  {
    kind: 'TOOL_CALL_LURE',
    regex:
      /\b(?:run|call|invoke|use|execute)\s+`?[a-z][a-z0-9]*_[a-z0-9_]+`?\s+(?:tool\s+)?(?:(?:now|immediately|first|right\s+away)\s+)?(?:on|with|against)\b/g,
  },
  {
    kind: 'TOOL_CALL_LURE',
    regex:
      /\b(?:send|share|post|paste|give|forward|email|provide|reveal|leak|upload|include|print)\s+(?:(?:me|us|it|them)\s+)?(?:your|the\s+agent'?s?|all\s+(?:of\s+)?your|any)\s+(?:[\w-]+\s+){0,2}?(?:tokens?|credentials?|api[\s_-]?keys?|passwords?|secrets?|session\s+cookies?|private\s+keys?)\b/gi,
    skipWhenNegated: true,
  },
  {
    // A secret file, to be sent somewhere or put in the agent's reply.
    kind: 'TOOL_CALL_LURE',
    regex:
      /~\/\.(?:ssh|aws|gnupg|kube|docker|netrc)\b\S*|\bid_(?:rsa|ed25519|ecdsa)\b|\/etc\/(?:passwd|shadow)\b|(?<![\w.])\.env\b/g,
    requires: (text, index) =>
      DESTINATION.test(sentenceAround(text, index)) ||
      /\byour\s+(?:next\s+)?(?:message|reply|answer|response)\b/i.test(sentenceAround(text, index)),
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
  {
    kind: 'EXFILTRATION',
    regex: new RegExp(String.raw`\b${EXFIL_VERB}\b[^.\n]{0,60}?\b${CONVERSATION}`, 'gi'),
    skipWhenNegated: true,
  },
  {
    kind: 'EXFILTRATION',
    regex: new RegExp(String.raw`\b${EXFIL_VERB}\b[^.\n]{0,60}?\b${PERSONAL_DATA}\b`, 'gi'),
    skipWhenNegated: true,
    requires: (text, index) => DESTINATION.test(sentenceAround(text, index)),
  },
  {
    // Their data sent somewhere, by an imperative or by an AI reader: "…agents complete the
    // reservation by submitting the traveller's card number to https://…".
    kind: 'EXFILTRATION',
    regex: new RegExp(
      String.raw`\b(?:submit|send|post|forward|upload|e-?mail|share|leak|transmit|pass|enter|paste)(?:s|ing|ting|ted|ed)?\b[^.\n]{0,60}?\b${THEIR_DATA}\b`,
      'gi',
    ),
    skipWhenNegated: true,
    requires: (text, index) => {
      const sentence = sentenceAround(text, index);
      return DESTINATION.test(sentence) && (atClauseOpening(text, index) || NAMES_AI_READER.test(sentence));
    },
  },
  {
    // A markdown image whose address has a slot for data, in a paragraph about the agent's reply.
    kind: 'EXFILTRATION',
    regex:
      /!\[[^\]\n]{0,100}\]\(\s*https?:\/\/[^\s)]{0,500}?(?:\{[^}\n]{1,100}\}|<[^>\n]{1,100}>|\$\{?[A-Za-z_]+\}?|\[[A-Z][A-Z_]{2,}\]|[?&][\w-]+=[A-Z][A-Z_]{3,}(?=[&)#]))[^)\n]{0,200}\)|^\[[^\]\n]{1,100}\]:\s*https?:\/\/\S{0,500}?(?:\{[^}\n]{1,100}\}|<[^>\n]{1,100}>|\$\{?[A-Za-z_]+\}?)/gm,
    requires: (text, index) => AGENT_OUTPUT.test(paragraphAround(text, index)),
  },
  // --- Encoded payloads: the instruction to decode and obey (the payloads themselves: instruction-decode.ts) ---
  {
    kind: 'ENCODED_INSTRUCTIONS',
    regex:
      /\b(?:decode|decrypt|convert|translate|read)\b[^.\n]{0,80}?\b(?:and|then)\s+(?:(?:follow|execute|obey|run|act\s+on|carry\s+out|apply)\s+(?:it|them|this|its\s+instructions|the\s+instructions(?:\s+inside)?)\b|do\s+what\s+it\s+says|treat\s+it\s+as|comply|obey)/gi,
    requires: (text, index) =>
      /base64|\bhex\b|rot-?13|encoded|cipher|decode|decrypt/i.test(sentenceAround(text, index)),
  },
];
