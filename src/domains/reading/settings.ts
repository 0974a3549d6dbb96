import { url } from '../../config/env-schema.ts';
import { defineSettings, z } from '../../config/settings.ts';

export interface ReadingSettings {
  /** Fresh reads in flight per process; past them reads get DEGRADED_MODE. */
  readConcurrency: number;
  /** web_search providers; SearXNG wins when both are set. */
  search: {
    searxngUrl: string | undefined;
    braveApiKey: string | undefined;
    braveUrl: string;
  };
}

/** Reading's own settings (docs/configuration.md): fresh reads at once, the search providers. */
export const readingSettings = defineSettings({
  env: {
    CAIRN_READ_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(32),
    CAIRN_SEARCH_SEARXNG_URL: url(['http:', 'https:']).optional(),
    CAIRN_SEARCH_BRAVE_API_KEY: z.string().min(8, 'must be at least 8 characters').max(500).optional(),
    CAIRN_SEARCH_BRAVE_URL: url(['https:', 'http:'])
      .refine(
        (v) =>
          v.startsWith('https:') || /^http:\/\/(?:127\.\d+\.\d+\.\d+|localhost|\[::1\])(?::\d+)?\//.test(v),
        'must be https (http only on loopback), since the API key travels with every request',
      )
      .default('https://api.search.brave.com/res/v1/web/search'),
  },
  secrets: ['CAIRN_SEARCH_BRAVE_API_KEY'],
  read: (e) => ({
    readConcurrency: e.CAIRN_READ_CONCURRENCY,
    search: {
      searxngUrl: e.CAIRN_SEARCH_SEARXNG_URL,
      braveApiKey: e.CAIRN_SEARCH_BRAVE_API_KEY,
      braveUrl: e.CAIRN_SEARCH_BRAVE_URL,
    },
  }),
});
