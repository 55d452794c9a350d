import type t from 'tap'
import type { IdempotencyStore } from '../../plugins/core/engine/index.ts'

/** A subtest's t (the last overload of t.test takes only the callback). */
type Test = Parameters<Parameters<typeof t.test>[0]>[0]

/** The contract every IdempotencyStore keeps (memory, Redis, a backend's own). */
export async function idempotencyStoreContract (t: Test, store: IdempotencyStore): Promise<void> {
  const mine = { fingerprint: 'f1', owner: 'me' }
  t.equal(await store.claim('k', mine, 60_000), null, 'a free key is claimed')
  t.same(await store.claim('k', { fingerprint: 'f2', owner: 'you' }, 60_000), mine, 'a claimed key answers its record')
  await store.complete('k', { fingerprint: 'f1', owner: 'you', result: { stolen: true } }, 60_000)
  t.same(await store.claim('k', mine, 60_000), mine, 'only the owner completes')
  await store.release('k', 'you')
  t.same(await store.claim('k', mine, 60_000), mine, 'only the owner releases')
  await store.complete('k', { ...mine, result: { paymentId: 'p1' } }, 60_000)
  t.same(await store.claim('k', { fingerprint: 'f1', owner: 'later' }, 60_000), { ...mine, result: { paymentId: 'p1' } }, 'completed records replay')
  await store.release('k', 'me')
  t.equal(await store.claim('k', { fingerprint: 'f3', owner: 'new' }, 60_000), null, 'released keys are free again')
}
