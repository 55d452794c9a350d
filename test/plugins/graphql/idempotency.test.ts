import t from 'tap'
import {
  DEFAULT_IDEMPOTENCY, Idempotency, MemoryIdempotencyStore, canonicalJson, fingerprint, type IdempotencyStore
} from '../../../plugins/graphql/index.ts'

const settings = { ...DEFAULT_IDEMPOTENCY }

t.test('fingerprints ignore field order, not values or array order', async (t) => {
  t.equal(canonicalJson({ b: 1, a: { d: [2, 1], c: null } }), '{"a":{"c":null,"d":[2,1]},"b":1}')
  t.equal(canonicalJson({ a: undefined }), '{"a":null}')
  t.equal(fingerprint({ a: 1, b: 'x' }), fingerprint({ b: 'x', a: 1 }))
  t.not(fingerprint({ a: [1, 2] }), fingerprint({ a: [2, 1] }))
  t.not(fingerprint({ a: 1 }), fingerprint({ a: '1' }))
})

t.test('without a key every call runs', async (t) => {
  const idempotency = new Idempotency(new MemoryIdempotencyStore(), settings)
  let runs = 0
  const first = await idempotency.run('op', undefined, {}, async () => ++runs)
  const second = await idempotency.run('op', undefined, {}, async () => ++runs)
  t.same([first, second], [{ result: 1, replayed: false }, { result: 2, replayed: false }])
})

t.test('a key runs once per input; other input with the same key is refused', async (t) => {
  const idempotency = new Idempotency(new MemoryIdempotencyStore(), settings)
  let runs = 0
  const run = (input: unknown, operation = 'op') => idempotency.run(operation, 'key-1', input, async () => ({ run: ++runs }))
  t.same(await run({ amount: 1 }), { result: { run: 1 }, replayed: false })
  t.same(await run({ amount: 1 }), { result: { run: 1 }, replayed: true })
  await t.rejects(run({ amount: 2 }), { code: 'PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_REUSED', message: /for a op with different input/ })
  t.same(await run({ amount: 2 }, 'other'), { result: { run: 2 }, replayed: false }, 'keys are per operation')
  t.equal(runs, 2)
})

t.test('a failure frees the key, so a retry runs again', async (t) => {
  const idempotency = new Idempotency(new MemoryIdempotencyStore(), settings)
  await t.rejects(idempotency.run('op', 'key', {}, async () => { throw new Error('storage down') }), { message: 'storage down' })
  t.same(await idempotency.run('op', 'key', {}, async () => 'ok'), { result: 'ok', replayed: false })
})

t.test('the operation\'s error wins over a failing release', async (t) => {
  const store = new MemoryIdempotencyStore()
  const failing: IdempotencyStore = {
    claim: (...args) => store.claim(...args),
    complete: (...args) => store.complete(...args),
    release: async () => { throw new Error('redis gone') }
  }
  const idempotency = new Idempotency(failing, settings)
  await t.rejects(idempotency.run('op', 'key', {}, async () => { throw new Error('the real failure') }), { message: 'the real failure' })
})

t.test('a retry waits for the running operation and gets its result', async (t) => {
  const idempotency = new Idempotency(new MemoryIdempotencyStore(), settings)
  let release = (): void => {}
  let runs = 0
  const first = idempotency.run('op', 'key', {}, async () => {
    runs++
    await new Promise<void>((resolve) => { release = resolve })
    return 'done'
  })
  const retry = idempotency.run('op', 'key', {}, async () => { runs++; return 'twice' })
  setImmediate(() => release())
  t.same(await first, { result: 'done', replayed: false })
  t.same(await retry, { result: 'done', replayed: true })
  t.equal(runs, 1)
})

t.test('a retry that waited waitMs gets IdempotencyKeyInProgress', async (t) => {
  const idempotency = new Idempotency(new MemoryIdempotencyStore(), { ...settings, waitMs: 0 })
  let release = (): void => {}
  const first = idempotency.run('op', 'key', {}, () => new Promise<string>((resolve) => { release = () => resolve('done') }))
  await t.rejects(idempotency.run('op', 'key', {}, async () => 'twice'), { code: 'PAYWIRE_ERR_GRAPHQL_IDEMPOTENCY_KEY_IN_PROGRESS' })
  release()
  t.same(await first, { result: 'done', replayed: false })
})
