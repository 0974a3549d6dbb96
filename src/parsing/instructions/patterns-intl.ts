/**
 * Overrides, persona switches and addresses to an AI reader in languages other than English (the
 * English families are in instruction-patterns.ts). Patterns are written with `\b` and `\w` and
 * compiled by instructions.ts with word boundaries that know every script (instruction-regex.ts):
 * JavaScript's own `\b` sees no boundary before "À" or inside Cyrillic.
 */
import type { Pattern } from './patterns.ts';

export const OTHER_LANGUAGE_PATTERNS: Pattern[] = [
  {
    kind: 'IGNORE_PREVIOUS',
    regex: new RegExp(
      [
        // French
        String.raw`\b(?:ignore[zr]?|oublie[zr]?|ne\s+tenez\s+pas\s+compte\s+des?)\s+(?:toutes\s+)?(?:les\s+|tes\s+|vos\s+)?(?:instructions|consignes|directives|règles)\s+(?:précédentes|antérieures|ci-dessus)`,
        // German
        String.raw`\b(?:ignorier(?:e|en\s+Sie)?|vergiss|vergessen\s+Sie|missachte(?:n\s+Sie)?)\s+(?:alle\s+)?(?:deine\s+|Ihre\s+)?(?:vorherigen|bisherigen|obigen|früheren|vorangegangenen|vorigen)\s+(?:Anweisungen|Instruktionen|Befehle|Regeln|Vorgaben)`,
        // Spanish, Italian, Portuguese
        String.raw`\b(?:ignora|ignore|olvida|olvide|descarta|omite|dimentica|trascura|esqueça|desconsidere)\s+(?:todas\s+|tutte\s+)?(?:las\s+|tus\s+|sus\s+|le\s+|as\s+)?(?:instrucciones|indicaciones|istruzioni|indicazioni|instruções|orientações|reglas|regole|regras)\s+(?:anteriores|previas|precedenti|prévias)`,
        // Dutch, Polish, Swedish
        String.raw`\b(?:negeer|vergeet)\s+(?:alle\s+)?(?:de\s+|je\s+|uw\s+)?(?:voorgaande|vorige|eerdere)\s+(?:instructies|opdrachten|regels)`,
        String.raw`\b(?:zignoruj|zapomnij|pomiń)\s+(?:wszystkie\s+)?(?:poprzednie|wcześniejsze)\s+(?:instrukcje|polecenia|zasady)`,
        String.raw`\b(?:ignorera|glöm)\s+(?:alla\s+)?(?:tidigare|föregående)\s+(?:instruktioner|regler)`,
        // "forget everything you were told"
        String.raw`\b(?:oublie|oubliez)\s+tout\s+ce\s+qu(?:e|')\s*(?:on\s+(?:t|vous)'a|tu\s+as\s+reçu|vous\s+avez\s+reçu)`,
        String.raw`\b(?:vergiss|vergessen\s+Sie)\s+alles,?\s+was\s+(?:dir|Ihnen)\s+(?:zuvor\s+|vorher\s+)?gesagt`,
        String.raw`\b(?:olvida|olvide)\s+todo\s+lo\s+que\s+(?:te|le)\s+(?:han|dijeron)`,
        // Turkish, Arabic, Indonesian, Vietnamese, Hindi
        String.raw`(?:önceki|yukarıdaki)\s+(?:tüm\s+|bütün\s+)?talimatları\s+(?:yok\s+say|unut|görmezden\s+gel)`,
        String.raw`(?:تجاهل|انس|تجاهلي)\s+(?:جميع\s+|كل\s+)?(?:التعليمات|الأوامر|الإرشادات)\s+السابقة`,
        String.raw`\b(?:abaikan|lupakan)\s+(?:semua\s+)?(?:instruksi|perintah|petunjuk)\s+(?:sebelumnya|di\s+atas)`,
        String.raw`(?:bỏ\s+qua|quên)\s+(?:tất\s+cả\s+)?(?:các\s+)?(?:hướng\s+dẫn|chỉ\s+dẫn|lệnh)\s+(?:trước\s+đó|ở\s+trên)`,
        String.raw`पिछले\s+(?:सभी\s+)?(?:निर्देशों|आदेशों)\s+को\s+(?:अनदेखा|नज़रअंदाज़|नजरअंदाज)`,
        // Russian
        String.raw`(?:игнорируй(?:те)?|проигнорируй(?:те)?|забудь(?:те)?)\s+(?:все\s+)?(?:предыдущие|прошлые|прежние|вышеуказанные)\s+(?:инструкции|указания|команды|правила)`,
        // Chinese
        String.raw`(?:忽略|无视|忽视|忘记|忘掉|不要理会)[^。！？\n]{0,8}(?:指令|指示|提示词|规则)`,
        // Japanese
        String.raw`(?:これまで|以前|前|上記)の(?:すべての|全ての)?(?:指示|命令|指令|ルール)[^。\n]{0,8}(?:無視|忘れ)`,
        // Korean
        String.raw`(?:이전|앞|위)의?\s*(?:모든\s*)?(?:지시|명령|지침)\S*\s*(?:무시|잊어)`,
      ].join('|'),
      'gi',
    ),
  },
  {
    kind: 'ADDRESSED_TO_AGENT',
    regex:
      /\b(?:nota|mensaje|instrucciones|aviso)\s+para\s+(?:el|la|los|las)\s+(?:asistentes?|modelos?|agentes?)\s+de\s+IA\b|\b(?:nota|mensaje|instrucciones)\s+para\s+la\s+IA\b|\b(?:remarque|note|message|consigne)s?\s+(?:pour|à|aux)\s+(?:l['’]|les\s+)?(?:assistants?|agents?|modèles?)\s+(?:d['’])?IA\b|\b(?:remarque|note|message)\s+(?:pour|à)\s+l['’]IA\b|\b(?:Hinweis|Nachricht|Anweisung)(?:en)?\s+(?:an|für)\s+(?:die\s+|alle\s+)?KI(?:-(?:Assistent|Agent|Modell|System|Bot|Tool|Werkzeug|Crawler)\w*)?(?![\w-])|\b(?:nota|messaggio)\s+per\s+(?:l['’]|gli\s+)?(?:assistente|IA|modelli)\s*(?:IA|di\s+IA)?\b|\b(?:nota|mensagem)\s+para\s+(?:o|a|os)\s+(?:assistente|IA|modelos?)\b/gi,
  },
  {
    kind: 'ROLE_PROMPT',
    regex:
      /\ba\s+partir\s+de\s+ahora,?\s+(?:eres|serás|actúa|responde)\b|\b(?:à\s+partir\s+de\s+maintenant|désormais),?\s+(?:tu\s+es|vous\s+êtes|réponds|répondez)\b|\bab\s+(?:jetzt|sofort),?\s+(?:bist\s+du|antwortest\s+du|antworte)\b|\b(?:du\s+bist|Sie\s+sind)\s+(?:ab\s+jetzt|jetzt|nun|ab\s+sofort)\s+(?:eine?\s+)?(?:KI|Assistent|Modell|Chatbot)|\b(?:KI|IA|AI|Assistent|asistente|assistant|assistente|modèle|modelo|Modell)\s+(?:\S+\s+){0,2}(?:ohne|sans|sin|senza|sem)\s+(?:\S+\s+)?(?:Einschränkungen|Regeln|restrictions|règles|limites|restricciones|reglas|límites|restrizioni|regole|restrições|regras)|(?:从现在起|从现在开始)，?你(?:是|将)|你现在是/gi,
  },
];
