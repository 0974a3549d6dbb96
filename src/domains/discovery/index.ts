import type { describeErrorCatalog } from '../../kernel/errors.ts';
import type { ConnectMethods } from './connect-methods.ts';
import { buildConnection, RUNTIMES } from './connection.ts';
import { describeDemo } from './demo.ts';
import { buildGuide } from './guide.ts';
import { guideAsHtml } from './guide-html.ts';
import { buildLlmsTxt } from './llms-txt.ts';
import { DEFAULT_OAUTH_CHECKS_FILE, oauthClientChecksReader } from './oauth-client-checks.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from './oauth-metadata.ts';
import { buildResearchCases } from './research-case.ts';
import { buildServerCard } from './server-card.ts';
import { buildTerms } from './terms.ts';
import { catalogueFingerprint, type ToolDoc, toolsAsText } from './tool-docs.ts';
import { buildUpdates } from './updates.ts';

/** One entry of the error reference (`/v1/public/errors`). */
export type ErrorDoc = ReturnType<typeof describeErrorCatalog>[number];

export type { ConnectMethods } from './connect-methods.ts';
export { SERVER_NAME, SERVER_VERSION } from './connect-methods.ts';
export { DEFAULT_RUNTIME, RUNTIMES, type Runtime } from './connection.ts';
export { publicStats, serverStatus } from './status.ts';
export type { ToolDoc } from './tool-docs.ts';

/** Every public document, built once at start: they depend only on configuration and the catalogue. */
export function buildDiscovery(
  baseUrl: string,
  methods: ConnectMethods,
  tools: ToolDoc[],
  protocols: string[],
  errors: ErrorDoc[],
  oauthChecksFile: string = DEFAULT_OAUTH_CHECKS_FILE,
) {
  const fingerprint = catalogueFingerprint(tools);
  const guide = buildGuide(baseUrl, methods);
  // Every runtime with and without deny_other_web: ten small documents, made once.
  const connections = Object.fromEntries(
    RUNTIMES.flatMap((runtime) =>
      [false, true].map((deny) => [`${runtime}:${deny}`, buildConnection(baseUrl, methods, runtime, deny)]),
    ),
  );
  return {
    tools,
    errors,
    toolsText: toolsAsText(tools),
    guide,
    guideHtml: guideAsHtml(guide),
    connections,
    demo: describeDemo(),
    researchCases: buildResearchCases(baseUrl, tools),
    oauthClientChecks: oauthClientChecksReader(oauthChecksFile),
    llmsTxt: buildLlmsTxt(baseUrl, tools),
    serverCard: buildServerCard(baseUrl, methods, tools, protocols),
    terms: buildTerms(baseUrl),
    updates: buildUpdates(fingerprint),
    protectedResource: protectedResourceMetadata(baseUrl),
    authorizationServer: authorizationServerMetadata(baseUrl),
  };
}

export type Discovery = ReturnType<typeof buildDiscovery>;
