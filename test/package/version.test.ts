import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { DEPRECATIONS } from '../../plugins/core/engine/index.ts'

/*
 * One version story: the package is 0.x, the deprecated 1.x-style items go away in the next
 * major version, and the warnings, MIGRATION.md, docs/deprecations.md and the CHANGELOG say so.
 */
const root = join(import.meta.dirname, '../..')
const read = (file: string): string => readFileSync(join(root, file), 'utf8')
const pkg = JSON.parse(read('package.json')) as { version: string }

t.test('every deprecation warning says it is removed in the next major version', async (t) => {
  for (const deprecation of DEPRECATIONS) {
    t.match(deprecation.warning.message, /^Deprecated, removed in the next major version: /, deprecation.code)
  }
})

t.test('the guides name no Paywire version the package never had', async (t) => {
  t.match(pkg.version, /^0\./)
  for (const file of ['MIGRATION.md', 'docs/deprecations.md', 'README.md', 'CHANGELOG.md']) {
    t.notMatch(read(file), /\b(removed in|since) [1-9]\.\d/, `${file} dates nothing by a Paywire version`)
    t.notMatch(read(file), /\b3\.0\b/, `${file} does not mention 3.0`)
  }
  t.match(read('MIGRATION.md'), '| next major version of Paywire | The deprecated items below are removed. |')
  t.match(read('docs/deprecations.md'), 'the next major version of Paywire removes it')
})

t.test('the CHANGELOG keeps an Unreleased section in the Keep a Changelog form', async (t) => {
  const changelog = read('CHANGELOG.md')
  t.match(changelog, /^# Changelog\n/)
  t.match(changelog, 'https://keepachangelog.com/')
  t.match(changelog, /^## Unreleased$/m)
  t.match(changelog, /^### Added$/m)
})
