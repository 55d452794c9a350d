import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { DEPRECATIONS } from '../../../plugins/core/engine/index.ts'
import { AcmeGatewayFactory as AcmeV1 } from '../../../examples/migration/v1/index.ts'
import { AcmeGatewayFactory as AcmeV2 } from '../../../examples/migration/v2/index.ts'
import { deprecationCodes } from '../../../examples/migration/check-deprecations.ts'
import { shopFromEnvironment } from '../../../examples/migration/errors/empty-credentials.ts'
import { ERROR_SITUATIONS, errorOf } from './fixtures/error-situations.ts'
import { ROOT, markers, render } from './fixtures/snippets.ts'

const guide = readFileSync(join(ROOT, 'MIGRATION.md'), 'utf8')

async function errorText (name: string): Promise<string> {
  const error = await errorOf(name)
  return `${error.code}: ${error.message}`
}

/** Sections by heading text: from "### Title" to the next heading of that level or above. */
function sections (markdown: string, level: number): Map<string, string> {
  const result = new Map<string, string>()
  for (const part of markdown.split(new RegExp(`^(?=#{1,${level}} )`, 'm'))) {
    const heading = new RegExp(`^#{${level}} (.*)`).exec(part)
    if (heading !== null) result.set(heading[1] as string, part)
  }
  return result
}

function slug (heading: string): string {
  return heading.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-')
}

t.test('MIGRATION.md and docs/deprecations.md quote the compiled examples, real errors and the defined codes', async (t) => {
  // `npx tap --snapshot test/examples/migration/migration-guide.test.ts` rewrites them from their sources.
  for (const [file, guideLink] of [['MIGRATION.md', ''], ['docs/deprecations.md', '../MIGRATION.md']] as const) {
    const path = join(ROOT, file)
    const rendered = await render(readFileSync(path, 'utf8'), guideLink, errorText)
    if (process.env.TAP_SNAPSHOT === '1') writeFileSync(path, rendered)
    t.equal(readFileSync(path, 'utf8'), rendered, file)
  }
})

t.test('each error situation produces its documented code', async (t) => {
  t.same(markers(guide).filter((marker) => marker.kind === 'error').map((marker) => marker.ref).sort(), Object.keys(ERROR_SITUATIONS).sort())
  for (const [name, situation] of Object.entries(ERROR_SITUATIONS)) t.equal((await errorOf(name)).code, situation.code, name)
})

t.test('each of the six rules has a section with before and after code', async (t) => {
  const rules = [...sections(guide, 3).entries()].filter(([heading]) => heading.startsWith('Rule '))
  t.same(rules.map(([heading]) => heading.slice(0, 6)), ['Rule 1', 'Rule 2', 'Rule 3', 'Rule 4', 'Rule 5', 'Rule 6'])
  for (const [heading, text] of rules) t.ok(markers(text).filter((marker) => marker.kind === 'snippet').length >= 2, heading)
})

t.test('each deprecation code has its anchored section with before and after code', async (t) => {
  const byHeading = sections(guide, 3)
  for (const deprecation of DEPRECATIONS) {
    t.match(guide, `<a id="${deprecation.guide}"></a>`)
    const heading = [...byHeading.keys()].find((title) => title.startsWith(`${deprecation.code}:`))
    t.match(byHeading.get(heading as string), /Before:\n\n<!-- snippet: [\s\S]*After:\n\n<!-- snippet: /, deprecation.code)
  }
})

t.test('links inside the guide lead to a heading or an anchor', async (t) => {
  const targets = new Set([
    ...[...guide.matchAll(/^#+ (.*)$/gm)].map((match) => slug(match[1] as string)),
    ...[...guide.matchAll(/<a id="([^"]+)"><\/a>/g)].map((match) => match[1] as string)
  ])
  const links = [...guide.matchAll(/\]\(#([^)]+)\)/g)].map((match) => match[1] as string)
  t.ok(links.length > 10)
  for (const link of links) t.ok(targets.has(link), `#${link}`)
})

t.test('rule 6: the check finds the 1.x deprecations and none after migration', async (t) => {
  t.same(await deprecationCodes(new AcmeV1()), [
    'PAYWIREDEP001', 'PAYWIREDEP002', 'PAYWIREDEP004', 'PAYWIREDEP005', 'PAYWIREDEP006',
    'PAYWIREDEP007', 'PAYWIREDEP008', 'PAYWIREDEP010', 'PAYWIREDEP011'
  ])
  t.same(await deprecationCodes(new AcmeV2()), [])
})

t.test('the fix for empty credentials: values from the environment build the gateway, missing ones are named', async (t) => {
  const configured = shopFromEnvironment({ ACME_CLIENT_ID: 'id-1', ACME_CLIENT_SECRET: 'secret-1' })
  const unconfigured = shopFromEnvironment({ ACME_CLIENT_SECRET: 'secret-1' })
  t.teardown(() => Promise.all([configured.close(), unconfigured.close()]))
  t.doesNotThrow(() => configured.getGateway('shop'))
  t.throws(() => unconfigured.getGateway('shop'), { message: 'Gateway "shop": option "client_id" is required and must not be empty.' })
})
