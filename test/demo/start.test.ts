/*
 * npm start's failures (demo/start.ts): what to change, on one line, never a stack trace.
 */
import { createServer } from 'node:net'
import { once } from 'node:events'
import t from 'tap'
import { startupMessage } from '../../demo/start.ts'
import { envWith, spawnUncovered } from '../helpers/child-process.ts'

t.test('npm start explains what to change when it cannot start', async (t) => {
  t.match(startupMessage(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }), { port: 3000, host: '127.0.0.1' } as never), 'Port 3000 on 127.0.0.1 is in use')
  t.match(startupMessage(new Error('redis://:pw@x failed')), 'redis://:***@x')

  const blocker = createServer().listen(0, '127.0.0.1')
  await once(blocker, 'listening')
  t.teardown(() => blocker.close())
  const port = String((blocker.address() as { port: number }).port)
  const child = spawnUncovered('npm', ['start', '--silent'], { env: envWith({ PORT: port, REDIS_URL: '', DATABASE_URL: '', PAYPAL_CLIENT_ID: '', PAYPAL_CLIENT_SECRET: '' }), stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const [code] = await once(child, 'exit')
  t.equal(code, 1)
  t.match(stderr, `Port ${port} on 127.0.0.1 is in use by another program`)
  t.notMatch(stderr, /\n\s+at /, 'no stack trace')
})
