import t from 'tap'
import { Logger, NullLogger } from '../../../../../plugins/core/engine/index.ts'

t.test('the null logger is a Logger that accepts every level and writes nothing', async (t) => {
  const logger = new NullLogger()
  t.ok(logger instanceof Logger)
  const written: string[] = []
  const write = process.stdout.write
  process.stdout.write = ((chunk: string) => { written.push(chunk); return true }) as typeof process.stdout.write
  try {
    logger.debug('d')
    logger.info({ a: 1 }, 'i')
    logger.warn('w')
    logger.error(new Error('e'), 'e')
  } finally {
    process.stdout.write = write
  }
  t.same(written, [])
})
