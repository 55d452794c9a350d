/*
 * Every storage keeps what the engine accepts, as given: memory, Redis and PostgreSQL
 * answer the same record for huge and tiny numbers, Unicode beyond the BMP, empty strings
 * and keys, long ids and values, deep (but allowed) nesting.
 */
import t from 'tap'
import { MAX_RECORD_DEPTH, MemoryStorageBackend, Payment, type StorageBackend } from '../../../plugins/core/engine/index.ts'
import { PostgresStorageBackend } from '../../../plugins/postgres/index.ts'
import { RedisStorageBackend } from '../../../plugins/redis/index.ts'
import { testRedis } from '../redis/fixtures.ts'
import { testPostgres } from './fixtures.ts'

const { pool, schema } = await testPostgres(t, 'edge')
const { client, prefix } = await testRedis(t, 'edge')

const backends: Array<[string, StorageBackend]> = [
  ['memory', new MemoryStorageBackend()],
  ['Redis', new RedisStorageBackend(client, { keyPrefix: prefix })],
  ['PostgreSQL', new PostgresStorageBackend(pool, { schema })]
]

function nested (depth: number): Record<string, unknown> {
  let inner: Record<string, unknown> = { leaf: 'ok' }
  for (let level = 0; level < depth; level++) inner = { next: inner }
  return inner
}

const random = Array.from({ length: 4000 }, (_, i) => String.fromCodePoint(0x4e00 + ((i * 7919) % 20000))).join('')

const cases: Array<[string, Partial<Payment>]> = [
  ['huge and tiny numbers', { totalAmount: Number.MAX_VALUE, details: { small: Number.MIN_VALUE, negative: -1.5e300, unsafe: 2 ** 60, third: 1 / 3, zero: -0 } }],
  ['Unicode beyond the BMP, combining marks, right-to-left text', { description: '💶 𝄞 é (e\u0301) العربية עברית 中文', clientEmail: 'zoë@exämple.com' }],
  ['empty strings and an empty key', { number: '', description: '', details: { '': '', ' ': ' ' } }],
  ['a long id and long values', { id: `id-${random}`, number: random, description: random.repeat(10) }],
  ['nesting at the limit', { details: nested(MAX_RECORD_DEPTH - 3) }],
  ['JSON-looking and SQL-looking text', { description: '{"a":1}\' OR 1=1; --', details: { 'a.b': 'dotted key', $where: '$' } }]
]

for (const [name, backend] of backends) {
  t.test(`${name}: edge records are stored and read back as given`, async (t) => {
    const payments = backend.createStorage(Payment)
    for (const [what, fields] of cases) {
      const payment = Object.assign(payments.create(), { currencyCode: 'EUR' }, fields)
      await payments.update(payment)
      const found = await payments.find(payment.id as string)
      t.same(JSON.parse(JSON.stringify(found)), JSON.parse(JSON.stringify(payment)), what)
      if (typeof fields.number === 'string' && fields.number !== '') {
        t.same((await payments.findBy({ number: fields.number })).map((one) => one.id), [payment.id], `${what}: found by number`)
      }
      ;(found as Payment).description = 'changed'
      await payments.update(found as Payment)
      t.equal(payments.versionOf(found as Payment), 2, `${what}: written again`)
    }
  })
}
