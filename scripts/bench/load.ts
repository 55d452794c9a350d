import { Pool } from 'undici'

export interface Target {
  name: string
  origin: string
  /** The request that prepares a payment and answers the redirect to its capture URL. */
  prepare: { path: string, body: string }
}

export interface RoundResult {
  flows: number
  errors: number
  durationMs: number
  /** Latency of each complete flow (prepare → capture → done), in ms. */
  latencies: number[]
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }

function pathOf (location: string | string[] | undefined): string {
  const url = new URL(String(location))
  return url.pathname + url.search
}

/** One complete buyer flow, following the redirects; throws when any step answers wrong. */
async function flow (pool: Pool, target: Target): Promise<void> {
  const prepared = await pool.request({ method: 'POST', path: target.prepare.path, headers: FORM, body: target.prepare.body })
  await prepared.body.dump()
  if (prepared.statusCode !== 302) throw new Error(`${target.name} prepare answered ${prepared.statusCode}`)
  const captured = await pool.request({ method: 'GET', path: pathOf(prepared.headers.location) })
  await captured.body.dump()
  if (captured.statusCode !== 302) throw new Error(`${target.name} capture answered ${captured.statusCode}`)
  const done = await pool.request({ method: 'GET', path: pathOf(captured.headers.location), headers: { accept: 'application/json' } })
  const answer = await done.body.json() as { status?: string }
  if (answer.status !== 'captured') throw new Error(`${target.name} done read ${String(answer.status)}`)
}

/** `concurrency` buyers doing complete flows back to back for `durationMs`, or until `maxFlows` have started. */
export async function runRound (target: Target, concurrency: number, durationMs: number, maxFlows = Infinity): Promise<RoundResult> {
  const pool = new Pool(target.origin, { connections: concurrency, pipelining: 1 })
  const latencies: number[] = []
  let errors = 0
  let begun = 0
  const started = performance.now()
  const deadline = started + durationMs
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < deadline && begun++ < maxFlows) {
      const begin = performance.now()
      try {
        await flow(pool, target)
        latencies.push(performance.now() - begin)
      } catch {
        errors++
      }
    }
  }))
  const elapsed = performance.now() - started
  await pool.close()
  return { flows: latencies.length, errors, durationMs: elapsed, latencies }
}

export function percentile (sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(p / 100 * sorted.length))] as number
}
