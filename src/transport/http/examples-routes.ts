import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { errorEnvelope } from '../../kernel/errors.ts';

/**
 * `/examples/browser/{name}` (SPEC Public endpoints): small pages that run in a browser against
 * this server, same origin, no token of the page's own: device pairing, a tool call over
 * Streamable HTTP, and events_watch. Scripts are files of their own (the CSP allows only
 * same-origin scripts); the pages never store a token.
 */

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'examples');
const SCRIPTS = ['common', 'pairing', 'tool-call', 'events-watch'] as const;
const script = Object.fromEntries(SCRIPTS.map((n) => [n, readFileSync(path.join(DIR, `${n}.js`), 'utf8')]));

const PAGES = {
  pairing: {
    title: 'Device pairing',
    intro:
      'Starts device pairing (RFC 8628) for a new agent identity, shows the code your owner approves, polls until they decide, then calls identity_whoami with the token it got.',
    form: `<form id="pair"><label>Agent name <input id="name" value="Browser example" required maxlength="100"></label>
<button>Pair</button></form>
<p>Code: <strong id="code">-</strong> <a id="link"></a></p>
<pre id="status"></pre>`,
  },
  'tool-call': {
    title: 'A tool call over Streamable HTTP',
    intro:
      'Initializes an MCP session with the bearer you paste (a project key or access token) and calls identity_whoami. The token stays in this page only.',
    form: `<form id="call"><label>Bearer token <input id="token" type="password" required autocomplete="off"></label>
<button>Call identity_whoami</button></form>
<pre id="result"></pre>`,
  },
  'events-watch': {
    title: 'Watching a campaign',
    intro:
      "Calls events_watch in a loop with the cursor each answer returns, and lists the campaign's events as they happen (the identity must be a member).",
    form: `<form id="watch"><label>Bearer token <input id="token" type="password" required autocomplete="off"></label>
<label>Campaign <input id="campaign" required placeholder="cmp_…"></label>
<button>Watch</button></form>
<p id="status"></p><pre id="events"></pre>`,
  },
} as const;
type PageName = keyof typeof PAGES;

function page(name: PageName): string {
  const p = PAGES[name];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${p.title} · Cairn example</title><link rel="icon" href="/console/favicon.svg">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:.75rem;white-space:pre-wrap}label{display:block;margin:.5rem 0}</style>
</head><body>
<h1>${p.title}</h1>
<p>${p.intro}</p>
${p.form}
<p><a href="/examples/browser/pairing">Pairing</a> · <a href="/examples/browser/tool-call">Tool call</a> · <a href="/examples/browser/events-watch">events_watch</a> · <a href="/guide">Guide</a></p>
<script type="module" src="/examples/browser/${name}.js"></script>
</body></html>
`;
}

export async function exampleRoutes(app: FastifyInstance): Promise<void> {
  const r = app.withTypeProvider<ZodTypeProvider>();
  r.get(
    '/examples/browser/:name',
    {
      schema: {
        tags: ['public'],
        summary: 'Example pages that run in a browser',
        params: z.object({ name: z.string().max(40) }),
      },
    },
    async (req, reply) => {
      const name = req.params.name;
      if (name.endsWith('.js')) {
        const base = name.slice(0, -3);
        if ((SCRIPTS as readonly string[]).includes(base)) {
          return reply.type('text/javascript; charset=utf-8').send(script[base]);
        }
      } else if (name in PAGES) {
        return reply.type('text/html; charset=utf-8').send(page(name as PageName));
      }
      return reply.code(404).send(
        errorEnvelope(
          'NOT_FOUND',
          `No example page ${name.slice(0, 40)}.`,
          { examples: Object.keys(PAGES) },
          {
            next: 'Open /examples/browser/pairing, /examples/browser/tool-call or /examples/browser/events-watch.',
          },
        ),
      );
    },
  );
}
