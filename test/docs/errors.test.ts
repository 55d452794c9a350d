import { readFile } from 'node:fs/promises'
import t from 'tap'
import { errorCodes } from '../../plugins/core/engine/index.ts'

/** Codes answered over HTTP without an error class of their own. */
const RESPONSE_ONLY_CODES = ['PAYWIRE_ERR_INTERNAL']

t.test('every error code is documented in docs/errors.md, and the table lists no code that does not exist', async (t) => {
  const table = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8')
  const documented = new Set([...table.matchAll(/^\| `(PAYWIRE_ERR_\w+)` \| (\d{3}) \|/gm)].map((match) => `${match[1]} ${match[2]}`))
  const exported = Object.entries(errorCodes)
    .filter(([name]) => name.startsWith('PAYWIRE_ERR_'))
    .map(([name, ErrorClass]) => `${name} ${(ErrorClass as { prototype: { statusCode: number } }).prototype.statusCode ?? new (ErrorClass as new () => { statusCode: number })().statusCode}`)
  for (const entry of exported) t.ok(documented.has(entry), `${entry} is documented with its HTTP status`)
  const known = new Set([...exported.map((entry) => entry.split(' ')[0]), ...RESPONSE_ONLY_CODES])
  for (const entry of documented) t.ok(known.has(entry.split(' ')[0]), `${entry} exists`)
})
