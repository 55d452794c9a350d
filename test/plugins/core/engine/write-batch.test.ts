import t from 'tap'
import { WriteBatch } from '../../../../plugins/core/engine/index.ts'

t.test('flush() starts every write in the same tick and resolves when all are done', async (t) => {
  const batch = new WriteBatch()
  const started: number[] = []
  let tick = 0
  const finish: Array<() => void> = []
  for (let i = 0; i < 3; i++) {
    batch.add(() => {
      started.push(tick)
      return new Promise<void>((resolve) => finish.push(resolve))
    })
  }
  t.equal(batch.size, 3)
  let flushed = false
  const flushing = batch.flush().then(() => { flushed = true })
  tick = 1
  await new Promise((resolve) => setImmediate(resolve))
  t.same(started, [0, 0, 0], 'all three writes started before anything else ran')
  finish[0]?.()
  finish[1]?.()
  await new Promise((resolve) => setImmediate(resolve))
  t.notOk(flushed, 'still waiting for the last write')
  finish[2]?.()
  await flushing
  t.ok(flushed)
  t.equal(batch.size, 0, 'the batch is empty afterwards')
  await batch.flush()
})

t.test('a failing write rejects flush() with the first failure, after the others finished', async (t) => {
  const batch = new WriteBatch()
  const done: string[] = []
  batch.add(async () => { throw new Error('first') })
  batch.add(() => { throw new Error('second, thrown synchronously') })
  batch.add(async () => {
    await new Promise((resolve) => setImmediate(resolve))
    done.push('slow write')
  })
  await t.rejects(batch.flush(), { message: 'first' })
  t.same(done, ['slow write'], 'no write was left running')
})
