import { EventEmitter, once } from 'node:events'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { runPaypalSimulatorCli, SimulatorSettingError } from '../../../simulators/paypal/cli.ts'
import { basic } from './fixtures/helpers.ts'
import { spawnUncovered } from '../../helpers/child-process.ts'

const repositoryRoot = fileURLToPath(new URL('../../../', import.meta.url))

t.test('starts from the environment, prints how to use it, never the secret', async (t) => {
  const lines: string[] = []
  const signals = new EventEmitter()
  const app = await runPaypalSimulatorCli({
    env: { PAYPAL_SIMULATOR_PORT: '0', PAYPAL_SIMULATOR_CLIENT_ID: 'dev-client', PAYPAL_SIMULATOR_CLIENT_SECRET: 'dev-secret-value', PAYPAL_SIMULATOR_LOG_LEVEL: 'silent' },
    log: (line) => lines.push(line),
    signals
  })
  t.teardown(() => app.close())
  const base = app.listeningOrigin
  t.match(base, /^http:\/\/127\.0\.0\.1:\d+$/)
  t.match(lines.join('\n'), `listening on ${base}`)
  t.match(lines.join('\n'), 'Client id: dev-client (secret: PAYPAL_SIMULATOR_CLIENT_SECRET)')
  t.match(lines.join('\n'), `config: { 'service.EndPoint': '${base}' }`)
  t.match(lines[0], /Payments v1 for paypal_rest, Orders v2 and Payments v2 for paypal_checkout/, 'the banner names both APIs')
  t.notMatch(lines.join('\n'), 'dev-secret-value')

  const token = await fetch(`${base}/v1/oauth2/token`, {
    method: 'POST', headers: { authorization: basic('dev-client', 'dev-secret-value') }, body: new URLSearchParams({ grant_type: 'client_credentials' })
  })
  t.equal(token.status, 200)

  signals.emit('SIGTERM')
  await once(app.server, 'close')
  t.notOk(app.server.listening)
  t.match(lines.at(-1), /shutting down/)
})

t.test('defaults and a bad port', async (t) => {
  const lines: string[] = []
  const app = await runPaypalSimulatorCli({ env: { PAYPAL_SIMULATOR_PORT: '0', PAYPAL_SIMULATOR_LOG_LEVEL: 'silent' }, log: (line) => lines.push(line), signals: new EventEmitter() })
  t.teardown(() => app.close())
  t.match(lines.join('\n'), 'Client id: sim-client (secret: the built-in default')
  await t.rejects(runPaypalSimulatorCli({ env: { PAYPAL_SIMULATOR_PORT: '70000' }, log: () => {}, signals: new EventEmitter() }), /PAYPAL_SIMULATOR_PORT must be a TCP port/)
  await t.rejects(runPaypalSimulatorCli({ env: { PAYPAL_SIMULATOR_PORT: 'abc' }, log: () => {}, signals: new EventEmitter() }), /got "abc"/)
})

t.test('the default port is 8089', async (t) => {
  const signals = new EventEmitter()
  const app = await runPaypalSimulatorCli({ env: { PAYPAL_SIMULATOR_LOG_LEVEL: 'silent' }, log: () => {}, signals }).catch((error: SimulatorSettingError) => error)
  if (app instanceof Error) {
    t.equal(app.exitCode, 1, 'only a busy port may stop it')
    t.match(app.message, /port 8089 on 127\.0\.0\.1 is in use/)
    return
  }
  t.teardown(() => app.close())
  t.equal(app.listeningOrigin, 'http://127.0.0.1:8089')
})

t.test('`paywire paypal-simulator` listens and exits cleanly on SIGINT', async (t) => {
  // What `npm run paypal-simulator` runs (npm itself does not relay signals): the bin, from source.
  const child = spawnUncovered('node_modules/.bin/tsx', ['--conditions=paywire-source', 'bin/paywire.ts', 'paypal-simulator'], {
    cwd: repositoryRoot,
    detached: true,
    env: { ...process.env, PAYPAL_SIMULATOR_PORT: '0', PAYPAL_SIMULATOR_CLIENT_SECRET: 'script-secret', PAYPAL_SIMULATOR_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'ignore']
  })
  // Its own process group, so nothing it started outlives a failing test.
  const group = child.pid
  t.teardown(() => {
    try {
      if (group !== undefined) process.kill(-group, 'SIGKILL')
    } catch {}
  })
  const output: string[] = []
  let base = ''
  for await (const line of createInterface({ input: child.stdout })) {
    output.push(line)
    const match = /listening on (\S+)/.exec(line)
    if (match !== null) base = match[1] ?? ''
    if (line.includes('approval pages')) break
  }
  const response = await fetch(`${base}/v1/oauth2/token`, {
    method: 'POST', headers: { authorization: basic('sim-client', 'script-secret') }, body: new URLSearchParams({ grant_type: 'client_credentials' })
  })
  t.equal(response.status, 200)
  child.kill('SIGINT')
  const [code] = await once(child, 'exit')
  t.equal(code, 0)
  t.notMatch(output.join('\n'), 'script-secret')
})
