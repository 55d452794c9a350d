import { readFile } from 'node:fs/promises'
import t from 'tap'
import { paypalCheckoutErrorCodes } from '../../gateways/paypal-checkout/index.ts'
import { paypalRestErrorCodes } from '../../gateways/paypal-rest/index.ts'
import { stripeErrorCodes } from '../../gateways/stripe/index.ts'
import { ERROR_KINDS, errorCodes, type ErrorKind } from '../../plugins/core/engine/index.ts'
import { consoleErrorCodes } from '../../plugins/console/index.ts'
import { graphqlErrorCodes } from '../../plugins/graphql/index.ts'
import { postgresErrorCodes } from '../../plugins/postgres/index.ts'
import { redisErrorCodes } from '../../plugins/redis/index.ts'

/** Codes answered over HTTP without an error class of their own. */
const RESPONSE_ONLY_CODES = ['PAYWIRE_ERR_INTERNAL']

/** Each part's codes, and the heading its section of docs/errors.md starts with ('' for the engine's sections). */
const PARTS: Array<[Record<string, unknown>, string]> = [
  [errorCodes, ''],
  [redisErrorCodes, '## Redis plugin'],
  [graphqlErrorCodes, '## GraphQL plugin'],
  [consoleErrorCodes, '## Operator console'],
  [postgresErrorCodes, '## PostgreSQL plugin'],
  [paypalRestErrorCodes, '## PayPal REST gateway'],
  [paypalCheckoutErrorCodes, '## PayPal Checkout gateway'],
  [stripeErrorCodes, '## Stripe gateway']
]

function exported (codes: Record<string, unknown>): string[] {
  return Object.entries(codes)
    .filter(([name]) => name.startsWith('PAYWIRE_ERR_'))
    .map(([name, ErrorClass]) => `${name} ${(ErrorClass as { prototype: { statusCode: number } }).prototype.statusCode ?? new (ErrorClass as new () => { statusCode: number })().statusCode}`)
}

/** "CODE STATUS" per documented row, by the level-2 heading above it. */
function documentedBySection (table: string): Map<string, Set<string>> {
  const sections = new Map<string, Set<string>>()
  for (const section of table.split(/^(?=## )/m)) {
    const heading = section.startsWith('## ') ? section.slice(0, section.indexOf('\n')) : ''
    sections.set(heading, new Set([...section.matchAll(/^\| `(PAYWIRE_ERR_\w+)` \| (\d{3}) \|/gm)].map((match) => `${match[1]} ${match[2]}`)))
  }
  return sections
}

t.test('every error code is documented in docs/errors.md under its part, and the table lists no code that does not exist', async (t) => {
  const sections = documentedBySection(await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8'))
  const all = [...sections.values()].flatMap((codes) => [...codes])
  const pluginHeadings = PARTS.map(([, heading]) => heading).filter(Boolean)
  for (const [codes, heading] of PARTS) {
    const documented = new Set([...sections].filter(([title]) => heading === ''
      ? !pluginHeadings.some((plugin) => title.startsWith(plugin))
      : title.startsWith(heading)).flatMap(([, entries]) => [...entries]))
    for (const entry of exported(codes)) t.ok(documented.has(entry), `${entry} is documented with its HTTP status${heading === '' ? '' : ` under ${heading}`}`)
  }
  const known = new Set([...PARTS.flatMap(([codes]) => exported(codes)).map((entry) => entry.split(' ')[0]), ...RESPONSE_ONLY_CODES])
  for (const entry of all) t.ok(known.has(entry.split(' ')[0]), `${entry} exists`)
})

t.test('no code is defined by two parts', async (t) => {
  const names = PARTS.flatMap(([codes]) => Object.keys(codes).filter((name) => name.startsWith('PAYWIRE_ERR_')))
  t.equal(new Set(names).size, names.length)
})

t.test('every error code declares a kind, and docs/errors.md shows the same one', async (t) => {
  const text = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8')
  const documented = new Map([...text.matchAll(/^\| `(PAYWIRE_ERR_\w+)` \| \d{3} \| `(\w+)` \|/gm)].map((match) => [match[1], match[2]]))
  for (const [codes] of PARTS) {
    for (const [name, ErrorClass] of Object.entries(codes).filter(([name]) => name.startsWith('PAYWIRE_ERR_'))) {
      const { kind } = ErrorClass as { kind?: string }
      t.ok(ERROR_KINDS.includes(kind as ErrorKind), `${name} declares a kind`)
      t.equal(documented.get(name), kind, `${name}: its kind in docs/errors.md`)
    }
  }
  for (const kind of ERROR_KINDS) t.match(text, `| \`${kind}\` |`, `the kind ${kind} is explained`)
})
