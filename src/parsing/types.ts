/**
 * The contract between the reading domain and the parsers. Parsers turn untrusted bytes into
 * sanitised text; they run in the bounded worker pool (DESIGN.md convention 11) and never touch
 * the network or the database.
 */

/** What a fetched or stored body is, as far as parsing is concerned. */
export interface ParseInput {
  /** The decoded body (content-encoding already undone). */
  bytes: Uint8Array;
  /** The Content-Type header as received (may carry a charset), or '' when absent. */
  contentType: string;
  /** The URL the body came from, to resolve relative links and name the source. */
  url: string;
}

/** One run of text the instruction-like detector matched, as offsets into `text`. */
export interface InstructionSpan {
  /**
   * Offset into the returned text; -1 when the match is not in it: in content removed as hidden
   * (kind HIDDEN_TEXT), or, for mail, in a header field or attachment name (the note says which).
   */
  offset: number;
  length: number;
  /** Which pattern family matched, e.g. IGNORE_PREVIOUS, ROLE_PROMPT, TOOL_CALL_LURE, HIDDEN_TEXT. */
  kind: string;
  /** The matched text, at most 200 characters. */
  excerpt: string;
  /**
   * What the excerpt alone does not say, in words: for HIDDEN_TEXT, that the text was removed
   * and where it was hidden; for ENCODED_INSTRUCTIONS, what the encoded text decodes to.
   */
  note?: string;
}

/** Where text removed from a page was hidden. */
export type HiddenSource =
  | 'HTML_COMMENT'
  | 'ARIA_HIDDEN'
  | 'HIDDEN_ELEMENT'
  | 'CSS_HIDDEN'
  | 'TAG_CHARACTERS';

/** Text removed as hidden, kept for the instruction detector with where it was. */
export interface HiddenText {
  text: string;
  source: HiddenSource;
}

/** Why a page could not be served as text even though it was fetched. */
export type PageSurface = 'SIGN_IN' | 'APP_SHELL';

export interface ParsedDocument {
  kind: 'html' | 'text' | 'json' | 'pdf' | 'image';
  /**
   * Sanitised text. HTML headings are lines starting with `#`…`######` and a space; PDF pages
   * and OCR'd images start with a marker line `[page N]`.
   */
  text: string;
  title: string | null;
  /** Start offset in `text` of each page (PDF; a single page 1 for images), else empty. */
  pages: Array<{ page: number; offset: number }>;
  /** Each kind of change made to the content, e.g. SCRIPTS_REMOVED, ZERO_WIDTH_REMOVED, OCR. */
  transformations: string[];
  /** e.g. INSTRUCTION_LIKE_CONTENT. */
  flags: string[];
  instructionSpans: InstructionSpan[];
  /** Set when the page is a sign-in form or an empty script-rendered app shell. */
  surface: PageSurface | null;
}

/** One HTML table as rows of cell text. */
export interface ExtractedTable {
  index: number;
  caption: string | null;
  /** Header cells (from <th> in the first row or <thead>), empty when the table has none. */
  headers: string[];
  rows: string[][];
}

/** One JSON value found in a body. */
export interface ExtractedJson {
  /** DOCUMENT (the body is JSON), JSON_LD (script type application/ld+json), EMBEDDED (script type application/json). */
  source: 'DOCUMENT' | 'JSON_LD' | 'EMBEDDED';
  index: number;
  value: unknown;
}

/** A page's start offset in a document's text, as in ParsedDocument.pages. */
export interface PageOffset {
  page: number;
  offset: number;
}

/** What `locate` searches: a quote in a stored text, optionally on one page only. */
export interface LocateInput {
  text: string;
  quote: string;
  pages: PageOffset[];
  /** Restricts the search to this page (when the text has pages); an unknown page finds nothing. */
  page?: number;
}

/** What `locateAll` searches: several quotes in one stored text. */
export interface LocateAllInput {
  text: string;
  quotes: string[];
  pages: PageOffset[];
}

/** The nearest near-miss of an absent quote (near-miss.ts): offsets like QuoteMatch, and how close it is (0-1). */
export interface NearMissMatch {
  offset: number;
  length: number;
  page: number | null;
  similarity: number;
}

/** Where a quote was found in a stored text, in the original text's offsets (UTF-16 code units). */
export interface QuoteMatch {
  /** EXACT: the quote as given; NORMALISED: after folding whitespace, quotes, dashes, invisible characters and Unicode forms. */
  match: 'EXACT' | 'NORMALISED';
  offset: number;
  length: number;
  /** The page the match starts on; null when the text has no pages. */
  page: number | null;
}

/** What `diff` compares: two stored texts and the names for the patch's file headers. */
export interface DiffInput {
  oldName: string;
  newName: string;
  oldText: string;
  newText: string;
}

/** A line diff of two texts. */
export interface TextDiff {
  changed: boolean;
  /** Unified diff of the two texts (line based, two lines of context); null when too costly to compute. */
  unified: string | null;
  added_lines: number;
  removed_lines: number;
  /** True when the unified diff was cut at DIFF_MAX_CHARS (text-diff.ts). */
  truncated: boolean;
}

/** Reasons a body is refused by the parsers. */
export type ParseRefusalReason =
  | 'UNSUPPORTED_CONTENT_TYPE'
  | 'TOO_MANY_PAGES'
  | 'TOO_MANY_PIXELS'
  | 'UNREADABLE_CONTENT'
  | 'PARSE_TIMEOUT';

export class ParseRefusal extends Error {
  constructor(
    readonly reason: ParseRefusalReason,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ParseRefusal';
  }
}

/** The pool is at capacity: the caller should retry after `retryAfterSeconds`. */
export class ParserBusy extends Error {
  readonly retryAfterSeconds = 5;
  /** OWNER: the caller's own fair share is in use (others still get theirs); INSTANCE: the pool is full. */
  constructor(readonly share: 'OWNER' | 'INSTANCE' = 'INSTANCE') {
    super(
      share === 'OWNER'
        ? "The caller's share of the parser pool is in use."
        : 'The parser pool is at capacity.',
    );
    this.name = 'ParserBusy';
  }
}

/**
 * What the reading domain calls; implemented by the worker pool. Every operation can fail with
 * ParserBusy (at capacity) and ParseRefusal (PARSE_TIMEOUT, UNREADABLE_CONTENT, and for bodies
 * the other reasons).
 */
export interface Parser {
  parse(input: ParseInput): Promise<ParsedDocument>;
  extractTables(input: ParseInput): Promise<ExtractedTable[]>;
  extractJson(input: ParseInput): Promise<ExtractedJson[]>;
  /** Finds a quote in a stored text: exactly first, then folded; null when it is not there. */
  locate(input: LocateInput): Promise<QuoteMatch | null>;
  /** Where the text says almost what the quote says, when locate found nothing; null when nothing is close. */
  nearMiss(input: LocateInput): Promise<NearMissMatch | null>;
  /** Finds several quotes in one stored text in one job (the text crosses to the thread once). */
  locateAll(input: LocateAllInput): Promise<Array<QuoteMatch | null>>;
  /** A unified line diff of two stored texts, bounded in time and size. */
  diff(input: DiffInput): Promise<TextDiff>;
  close(): Promise<void>;
}
