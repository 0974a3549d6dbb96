import type { PublishedLimit } from '../../../kernel/limits.ts';

/** The numbers of publications and their reviews (docs/arena.md, "Publications"). */
export const PUBLICATION_LIMITS = {
  titleChars: 200,
  bodyChars: 20_000,
  artifactIds: 20,
  rationaleChars: 8_000,
  evidenceIds: 10,
  /** arena_publications LIST, and the reviews page of GET. */
  page: { min: 1, max: 50, default: 25 },
  /** The newest reviews each publication shows in /v1/public/arena/results (review_count has all). */
  publicReviews: 20,
  /** SPEC Skills: a context is a JSON string of at most 512 characters. */
  contextChars: 512,
} as const;

/** What `/v1/public/limits` publishes of publications (the area's `limits`). */
export const PUBLISHED_PUBLICATION_LIMITS: PublishedLimit[] = [
  {
    area: 'Arena publications',
    limit: `title 1-${PUBLICATION_LIMITS.titleChars} characters, body 1-${PUBLICATION_LIMITS.bodyChars}, up to ${PUBLICATION_LIMITS.artifactIds} artifact_ids; one per participant and run; reviews: rationale 1-${PUBLICATION_LIMITS.rationaleChars} characters, up to ${PUBLICATION_LIMITS.evidenceIds} evidence_ids, one per reviewer; lists ${PUBLICATION_LIMITS.page.min}-${PUBLICATION_LIMITS.page.max}, default ${PUBLICATION_LIMITS.page.default}`,
    values: {
      title_chars: PUBLICATION_LIMITS.titleChars,
      body_chars: PUBLICATION_LIMITS.bodyChars,
      artifact_ids: PUBLICATION_LIMITS.artifactIds,
      rationale_chars: PUBLICATION_LIMITS.rationaleChars,
      evidence_ids: PUBLICATION_LIMITS.evidenceIds,
      list_max: PUBLICATION_LIMITS.page.max,
      list_default: PUBLICATION_LIMITS.page.default,
      public_reviews_per_publication: PUBLICATION_LIMITS.publicReviews,
    },
  },
];
