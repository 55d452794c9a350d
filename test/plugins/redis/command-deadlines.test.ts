import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { DEADLINE_MESSAGE, withDeadline } from '../../../plugins/redis/command-deadlines.ts'
import { guarded } from '../../../plugins/redis/keys.ts'
import { envWith, spawnUncovered } from '../../helpers/child-process.ts'

const mapped = (error: unknown) => Object.assign(new Error('mapped'), { cause: error })

function later<T> (ms: number, value: T): Promise<T> {
  return sleep(ms).then(() => value)
}

t.test('a call that answers in time gives its answer; a failure is mapped', async (t) => {
  t.equal(await withDeadline(Promise.resolve(1), 1000, mapped), 1)
  t.equal(await withDeadline(later(20, 2), 1000, mapped), 2)
  const failure = new Error('READONLY')
  await t.rejects(withDeadline(Promise.reject(failure), 1000, mapped), { message: 'mapped', cause: failure })
})

t.test('each call fails at its own deadline, counted from when it was issued', async (t) => {
  const started = performance.now()
  const never = new Promise<never>(() => {})
  const first = withDeadline(never, 300, mapped).catch((error: Error) => ({ error, after: performance.now() - started }))
  await sleep(150)
  // Answers out of order between the two: neither moves the other's deadline.
  const answered = withDeadline(later(50, 'in time'), 300, mapped)
  const second = withDeadline(never, 300, mapped).catch((error: Error) => ({ error, after: performance.now() - started }))
  t.equal(await answered, 'in time')
  const [a, b] = await Promise.all([first, second])
  t.match(a, { error: { message: 'mapped', cause: { message: DEADLINE_MESSAGE } } })
  t.match(b, { error: { message: 'mapped', cause: { message: DEADLINE_MESSAGE } } })
  t.ok(a.after >= 299 && a.after < 300 + 250, `the first failed after ${Math.round(a.after)} ms`)
  t.ok(b.after >= 449 && b.after < 450 + 250, `the second failed after ${Math.round(b.after)} ms (issued 150 ms later)`)
})

t.test('an answer after the deadline is ignored, a failure after it too (no unhandled rejection)', async (t) => {
  await t.rejects(withDeadline(later(120, 'late'), 40, mapped), { cause: { message: DEADLINE_MESSAGE } })
  await t.rejects(withDeadline(sleep(120).then(() => { throw new Error('late failure') }), 40, mapped), { cause: { message: DEADLINE_MESSAGE } })
  await sleep(150)
})

t.test('many calls at once: those that answer do, the rest fail at their deadline', async (t) => {
  const calls = Array.from({ length: 3000 }, (_, i) => withDeadline(i % 3 === 0 ? new Promise<never>(() => {}) : later(i % 50, i), 200, mapped)
    .then((value) => ({ value }), (error: Error) => ({ error })))
  const outcomes = await Promise.all(calls)
  t.ok(outcomes.every((outcome, i) => i % 3 === 0 ? 'error' in outcome : (outcome as { value: number }).value === i))
})

t.test('guarded() maps failures to PAYWIRE_ERR_STORAGE_UNAVAILABLE, with a deadline or without', async (t) => {
  t.equal(await guarded(Promise.resolve('OK')), 'OK')
  t.equal(await guarded(Promise.resolve('OK'), 1000), 'OK')
  await t.rejects(guarded(Promise.reject(new Error('Connection is closed.'))), { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE', reason: 'Connection is closed.' })
  await t.rejects(guarded(new Promise(() => {}), 30), { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE', reason: DEADLINE_MESSAGE })
})

/** Runs a module in a process of its own: its output and how long it took to exit. */
async function runAlone (source: string): Promise<{ output: string, ms: number }> {
  const started = performance.now()
  const child = spawnUncovered(process.execPath, ['--conditions=paywire-source', '--import', 'tsx', '--input-type=module', '-e', source], {
    env: envWith({}), cwd: fileURLToPath(new URL('../../..', import.meta.url))
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString() })
  await once(child, 'exit')
  return { output, ms: performance.now() - started }
}

t.test('a call in flight keeps the process alive until its deadline; answered calls keep nothing alive', async (t) => {
  const module = JSON.stringify(fileURLToPath(new URL('../../../plugins/redis/command-deadlines.ts', import.meta.url)))
  const pending = await runAlone(`import { withDeadline } from ${module}
withDeadline(new Promise(() => {}), 300, (error) => error).catch((error) => { console.log(error.message) })`)
  t.equal(pending.output.trim(), DEADLINE_MESSAGE)
  const answered = await runAlone(`import { withDeadline } from ${module}
console.log(await withDeadline(Promise.resolve('answered'), 60000, (error) => error))`)
  t.equal(answered.output.trim(), 'answered')
  t.ok(answered.ms < 30000, `exited after ${Math.round(answered.ms)} ms, not at the 60 s deadline`)
})
