import type { OperationContext } from '../../../framework/index.ts';
import type { SearchProvider } from '../search.ts';
import type { ReadingService } from '../service.ts';

/** What the Read tools reach through their context. */
export type ReadServices = { reading: ReadingService; search: SearchProvider | null };
export type ReadCtx = OperationContext<ReadServices>;
