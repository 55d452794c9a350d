import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildSync, transformSync } from 'esbuild'
import t from 'tap'
import ts from 'typescript'
import type { CompiledRun } from './fixtures/compiled-gateway.ts'

/*
 * Constructor injection must not depend on how the application's classes were compiled:
 * the same factories, compiled by tsc, by esbuild (tsx), and minified, wire the same way.
 * The compiled modules are written under .tap/fixtures (inside the repository), so they
 * import paywire/engine from source through the package's self-reference.
 */
const root = join(import.meta.dirname, '../../../../..')
const fixture = join(import.meta.dirname, 'fixtures/compiled-gateway.ts')
const source = readFileSync(fixture, 'utf8')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string>, peerDependencies: Record<string, string> }

const COMPILERS: Record<string, () => string> = {
  tsc: () => ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: true } }).outputText,
  // What tsx runs: a module-level `api` makes esbuild rename the constructor parameter.
  esbuild: () => transformSync(source, { loader: 'ts', format: 'esm', target: 'es2022' }).code,
  // The fixture and the engine in one bundle, every local name mangled.
  minified: () => buildSync({
    entryPoints: [fixture],
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'es2022',
    conditions: ['paywire-source'],
    external: [...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)],
    logLevel: 'silent'
  }).outputFiles[0]?.text ?? ''
}

for (const [compiler, compile] of Object.entries(COMPILERS)) {
  t.test(`compiled by ${compiler}`, async (t) => {
    const code = compile()
    if (compiler === 'esbuild') t.match(code, /constructor\(api2\)/, 'esbuild renamed the parameter')
    if (compiler === 'minified') t.notMatch(code, /constructor\(api\)/, 'the minifier renamed the parameter')
    const file = join(t.testdir(), 'compiled-gateway.mjs')
    writeFileSync(file, code)
    const { run } = await import(pathToFileURL(file).href) as { run: () => Promise<CompiledRun> }
    const { outcomes, undeclaredName } = await run()
    t.same(outcomes.named, { captured: ['ORDER-named'] }, 'constructorParameter(\'api\', ...) on a class declaring static inject')
    t.same(outcomes.positional, { captured: ['ORDER-positional'] }, 'constructor(...) on a class declaring nothing')
    t.equal(outcomes['named-undeclared'].error?.code, 'PAYWIRE_ERR_CONSTRUCTOR_PARAMETERS_UNDECLARED', 'constructorParameter() on a class declaring nothing')
    t.match(outcomes['named-undeclared'].error?.message, `constructorParameter('api') cannot be mapped to a constructor parameter of ${undeclaredName}:`)
  })
}
