import t from 'tap'
import { quoted, redactPostgresUrl, unavailable } from '../../../plugins/postgres/sql.ts'
import { errorCodes } from '../../../plugins/core/engine/index.ts'

t.test('failures become a coded 503 with the first line and the SQLSTATE, never the detail', async (t) => {
  const failure = Object.assign(new Error('duplicate key value violates unique constraint\nDETAIL: Key (id)=(secret) exists.'), { code: '23505', detail: 'Key (id)=(secret)' })
  const coded = unavailable(failure)
  t.match(coded, { code: 'PAYWIRE_ERR_STORAGE_UNAVAILABLE', statusCode: 503, reason: 'duplicate key value violates unique constraint [23505]' })
  t.notMatch(coded.message, 'secret')
  t.notMatch(JSON.stringify((coded as Error & { cause: unknown }).cause), 'secret')
  t.notMatch(String((coded as Error & { cause: Error }).cause.stack), 'secret')
  t.match(unavailable('a string'), { reason: 'a string' }, 'a thrown non-error')
  const paywire = new errorCodes.PAYWIRE_ERR_CLAIM_LOST('k')
  t.equal(unavailable(paywire), paywire, 'a Paywire error passes through')
})

t.test('schema names are quoted as identifiers; URLs lose their passwords', async (t) => {
  t.equal(quoted('paywire'), '"paywire"')
  t.equal(quoted('we"ird'), '"we""ird"')
  t.equal(redactPostgresUrl('postgres://shop:p@ss@db:5432/shop'), 'postgres://shop:***@db:5432/shop')
  t.equal(redactPostgresUrl('postgres://db:5432/shop?password=s3cr3t&sslmode=require'), 'postgres://db:5432/shop?password=***&sslmode=require')
  t.equal(redactPostgresUrl('postgres://shop@db/shop'), 'postgres://shop@db/shop')
})
