import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import { findOperatorIds } from './repo.ts';

/** How long a looked-up set of operators is trusted: a listed email that signs up counts within this long. */
const OPERATORS_TTL_MS = 5000;

/**
 * The instance's operators: the first account (the one who set the instance up) and the accounts listed in
 * `SVC_OPERATOR_EMAILS`. Only they may point test endpoints at this host's loopback; everyone else who signs up
 * (anyone can, on the embedded default) is a stranger to the machine. The set is cached for a few seconds so the
 * delivery worker can ask on its hot path without a round trip per delivery.
 */
export function createOperators(deps: { db: Db; clock: Clock; emails: readonly string[] }) {
  let cached: { ids: ReadonlySet<string>; at: number } | undefined;
  let loading: Promise<ReadonlySet<string>> | undefined;

  async function ids(fresh = false): Promise<ReadonlySet<string>> {
    const now = deps.clock.now().getTime();
    if (!fresh && cached !== undefined && now - cached.at < OPERATORS_TTL_MS) return cached.ids;
    loading ??= findOperatorIds(deps.db, deps.emails)
      .then((list) => {
        const set = new Set(list);
        // An empty set means no account yet: the first one to sign up becomes the operator, so look again next time.
        cached = set.size === 0 ? undefined : { ids: set, at: now };
        return set;
      })
      .finally(() => {
        loading = undefined;
      });
    return loading;
  }

  return {
    /** The operators' merchant ids, at most a few seconds old. */
    ids: () => ids(),
    /** Whether the merchant is an operator now (looked up again when the cached set says no: it is rarely asked). */
    async isOperator(merchantId: string): Promise<boolean> {
      return (await ids()).has(merchantId) || (await ids(true)).has(merchantId);
    },
  };
}
