import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Whose work this is, for the fair shares of shared pools (issue 40): an owner's id for the
 * owner's own calls and for its agents' tool calls, `mail:<address>` for anonymous mail intake.
 * Set around a call at the one place it enters (the operation runner, an owner's import, a mail
 * delivery) and read by the pool deep below, so nothing in between has to pass it along.
 */
const scope = new AsyncLocalStorage<string>();

export function withTenant<T>(tenant: string, work: () => T): T {
  return scope.run(tenant, work);
}

/** The tenant of the work running now; undefined outside any (startup, sweeps). */
export function currentTenant(): string | undefined {
  return scope.getStore();
}
