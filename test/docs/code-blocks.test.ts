import { join } from 'node:path'
import t from 'tap'
import { blocksOf, docBlocks } from '../package/doc-blocks.ts'

/*
 * The convention the docs' code blocks follow (CONTRIBUTING.md, "Code blocks in the docs"):
 * test/package/consumer.test.ts compiles and runs what blocksOf() gives it; this file checks
 * that the markers mean what CONTRIBUTING says, without packing anything.
 */
const fence = '```'

t.test('every TypeScript and JavaScript block of the docs is checked, or marked not-checked with a reason', async (t) => {
  const { checked, skipped } = docBlocks(join(import.meta.dirname, '../..'))
  t.ok(checked.some((block) => block.where.startsWith('README.md:')), 'the README')
  t.ok(checked.some((block) => block.where.startsWith('docs/')), 'the guides')
  t.ok(checked.some((block) => block.where.startsWith('gateways/')), 'the gateways\' READMEs')
  t.ok(skipped.length < checked.length / 5, `few blocks are not checked (${skipped.length} of ${checked.length + skipped.length})`)
  for (const block of skipped) t.ok(block.reason.length > 20, `${block.where}: ${block.reason}`)
})

t.test('a block is a module; with-previous continues the one before; context surrounds it', async (t) => {
  const text = [
    `${fence}sh`, 'npx paywire migrate', fence,
    `${fence}ts`, "import Fastify from 'fastify'", 'const app = Fastify()', fence,
    '<!-- paywire:with-previous -->', '', `${fence}ts`, 'await app.listen({ port: 3000 })', fence,
    '<!-- paywire:context', 'const app = Fastify()', 'app.get(\'/\', async () => {', '…', '})', '-->', `${fence}js`, 'return 1', fence,
    '<!-- paywire:context', 'const answer = 42', '-->', `${fence}ts`, 'console.log(answer)', fence,
    '  <!-- paywire:no-run it needs a Redis Cluster -->', `  ${fence}ts`, '  await app.listen({ port: 3000 })', '    // indented more', `  ${fence}`,
    '<!-- paywire:not-checked the event\'s shape, to read -->', `${fence}ts`, 'interface X { a: … }', fence,
    '<!-- an ordinary comment -->', `${fence}ts`, 'app.listen()', fence,
    `${fence}ts`, 'const paywire = new PaywireBuilder().getPaywire()', fence,
    '<!-- paywire:with-previous -->', `${fence}ts`, 'paywire.getStorage(Payment)', fence,
    `${fence}ts`, 'new PaywireBuilder().setStorageBackend(redis).getPaywire()', fence
  ].join('\n')
  const { checked, skipped } = blocksOf('guide.md', text)
  t.same(checked.map(({ where, code, listens }) => ({ where, code, listens })).slice(0, 6), [
    { where: 'guide.md:4', code: "import Fastify from 'fastify'\nconst app = Fastify()", listens: false },
    { where: 'guide.md:10', code: "import Fastify from 'fastify'\nconst app = Fastify()\nawait app.listen({ port: 3000 })", listens: false },
    { where: 'guide.md:19', code: "const app = Fastify()\napp.get('/', async () => {\nreturn 1\n})", listens: false },
    { where: 'guide.md:25', code: 'const answer = 42\nconsole.log(answer)', listens: false },
    { where: 'guide.md:29', code: 'await app.listen({ port: 3000 })\n  // indented more', listens: false },
    { where: 'guide.md:38', code: 'app.listen()', listens: true }
  ])
  t.equal(checked[0]?.name, 'guide-4')
  t.same(checked.map((block) => block.runsToEnd), [false, false, false, false, false, false, true, true, false],
    'a program on the engine alone runs to its end, continued or not; not one on Redis')
  t.same(skipped, [{ where: 'guide.md:34', reason: 'the event\'s shape, to read' }])
})

t.test('a marker without its reason, with nothing before it, or unknown, stops the check', async (t) => {
  t.throws(() => blocksOf('a.md', `<!-- paywire:not-checked -->\n${fence}ts\nx\n${fence}`), /a\.md:2: paywire:not-checked needs a reason/)
  t.throws(() => blocksOf('a.md', `<!-- paywire:no-run -->\n${fence}ts\nx\n${fence}`), /a\.md:2: paywire:no-run needs a reason/)
  t.throws(() => blocksOf('a.md', `<!-- paywire:with-previous -->\n${fence}ts\nx\n${fence}`), /a\.md:2: paywire:with-previous, but no checked block before it/)
  t.throws(() => blocksOf('a.md', `<!-- paywire:fragment -->\n${fence}ts\nx\n${fence}`), /a\.md:2: unknown marker <!-- paywire:fragment -->/)
})
