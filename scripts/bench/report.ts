/* The benchmark's tables: what scripts/bench.ts prints and writes into BENCHMARKS.md. */

export interface Figures {
  flowsPerSecond: number
  p50Ms: number
  p99Ms: number
  redisCommandsPerFlow: number
  redisRoundTripsPerFlow: number
  /** Server CPU (user + system) per flow: what the flow costs, whatever else runs on the machine. */
  serverCpuMsPerFlow: number
  redisCpuMsPerFlow: number
  /** Statements and transactions the server sent to PostgreSQL per flow (counted in the server process). */
  pgStatementsPerFlow: number
  pgTransactionsPerFlow: number
  /** Events the server's handlers were given per flow (delivery runs after the answers: read at the round's end). */
  eventsPerFlow: number
  rssMb: number
  errors: number
}

export type Results = Record<string, Record<number, Figures>>

export interface Soak {
  seconds: number
  flowsPerSecond: number
  errors: number
  /** RSS and heap (MB) averaged over the first and the last quarter of the run, and the highest RSS sampled. */
  rssFirstMb: number
  rssLastMb: number
  rssMaxMb: number
  heapFirstMb: number
  heapLastMb: number
}

export interface NodeRun {
  node: string
  results: Results
  soak: Soak
  postgres: Results
  library: Record<string, unknown>
}

export const fixed = (value: number, digits = 1): string => Number.isFinite(value) ? value.toFixed(digits) : 'n/a'

type Rows = Array<[keyof Figures, string, number]>

const redisRows: Rows = [
  ['flowsPerSecond', 'complete flows per second', 0],
  ['p50Ms', 'p50 latency per flow (ms)', 2],
  ['p99Ms', 'p99 latency per flow (ms)', 2],
  ['redisCommandsPerFlow', 'Redis commands per flow', 2],
  ['redisRoundTripsPerFlow', 'Redis round trips per flow', 2],
  ['serverCpuMsPerFlow', 'server CPU per flow (ms)', 3],
  ['redisCpuMsPerFlow', 'Redis CPU per flow (ms)', 3],
  ['eventsPerFlow', 'events delivered per flow', 2],
  ['rssMb', 'server RSS (MB)', 0],
  ['errors', 'failed flows', 0]
]

const pgRows: Rows = [
  ['flowsPerSecond', 'complete flows per second', 0],
  ['p50Ms', 'p50 latency per flow (ms)', 2],
  ['p99Ms', 'p99 latency per flow (ms)', 2],
  ['pgStatementsPerFlow', 'statements per flow', 2],
  ['pgTransactionsPerFlow', 'transactions per flow', 2],
  ['serverCpuMsPerFlow', 'server CPU per flow (ms)', 3],
  ['eventsPerFlow', 'events delivered per flow', 2],
  ['rssMb', 'server RSS (MB)', 0],
  ['errors', 'failed flows', 0]
]

/** Paywire, the bare floor and the guaranteed floor side by side, with Paywire's ratio to each. */
function sideBySide (results: Results, names: [string, string, string], heads: [string, string, string], rows: Rows, levels: number[]): string {
  const lines = [`| concurrency | figure | ${heads.join(' | ')} | Paywire / bare | Paywire / guaranteed |`, '|---|---|---:|---:|---:|---:|---:|']
  for (const concurrency of levels) {
    for (const [key, label, digits] of rows) {
      const [paywire, bare, guaranteed] = names.map((name) => results[name]?.[concurrency]?.[key] as number) as [number, number, number]
      const ratio = (floor: number) => key === 'errors' ? '' : fixed(paywire / floor, 2)
      lines.push(`| ${concurrency} | ${label} | ${fixed(paywire, digits)} | ${fixed(bare, digits)} | ${fixed(guaranteed, digits)} | ${ratio(bare)} | ${ratio(guaranteed)} |`)
    }
  }
  return lines.join('\n')
}

export function redisTable (results: Results, levels: number[]): string {
  return sideBySide(results, ['paywire', 'floor', 'floor-guaranteed'], ['Paywire', 'bare floor', 'guaranteed floor'], redisRows, levels)
}

export function pgTable (results: Results, levels: number[]): string {
  return sideBySide(results, ['paywire-pg', 'floor-pg', 'floor-guaranteed-pg'], ['Paywire on PostgreSQL', 'bare pg floor', 'guaranteed pg floor'], pgRows, levels)
}

const mb = (value: unknown, digits = 1): string => fixed(value as number / 2 ** 20, digits)

function memoryTable (run: NodeRun): string {
  const memory = run.library.memory as { heapPer10kPayments: number, rssPer10kPayments: number, heapPerIdleGateway: number, rssPerIdleGateway: number }
  const { soak } = run
  return [
    '| memory figure | value |', '|---|---:|',
    `| heap per 10,000 stored payments (memory storage) | ${mb(memory.heapPer10kPayments)} MB |`,
    `| RSS per 10,000 stored payments (memory storage) | ${mb(memory.rssPer10kPayments)} MB |`,
    `| heap per idle built gateway | ${fixed(memory.heapPerIdleGateway / 1024, 1)} KiB |`,
    `| RSS per idle built gateway | ${fixed(memory.rssPerIdleGateway / 1024, 1)} KiB |`,
    `| shop under concurrency 32 for ${fixed(soak.seconds, 0)} s: flows per second, failed | ${fixed(soak.flowsPerSecond, 0)}, ${soak.errors} |`,
    `| its RSS, first quarter → last quarter (max) | ${fixed(soak.rssFirstMb, 0)} → ${fixed(soak.rssLastMb, 0)} MB (${fixed(soak.rssMaxMb, 0)}) |`,
    `| its heap used, first quarter → last quarter | ${fixed(soak.heapFirstMb, 0)} → ${fixed(soak.heapLastMb, 0)} MB |`
  ].join('\n')
}

function libraryTable (library: Record<string, unknown>): string {
  return `| library figure | value |\n|---|---:|\n| cold getGateway() build (median) | ${fixed(library.coldGatewayBuildMs as number, 3)} ms |\n` +
    `| cached getGateway() | ${fixed(library.cachedGetGatewayNs as number, 0)} ns |\n| memory per built gateway | ${fixed(library.bytesPerBuiltGateway as number / 1024, 1)} KiB |\n` +
    `| capture tokens created per second (memory) | ${fixed((library.tokens as { createPerSecond: number }).createPerSecond, 0)} |\n` +
    `| tokens verified per second (memory) | ${fixed((library.tokens as { verifyPerSecond: number }).verifyPerSecond, 0)} |`
}

/** Issue 23's goals, each Paywire figure against the guaranteed floor's of the same run (concurrency 32). */
export function targetsTable (run: NodeRun): string {
  const at = (results: Results, name: string, key: keyof Figures) => results[name]?.[32]?.[key] as number
  const ratio = (results: Results, key: keyof Figures, paywire: string, floor: string) => at(results, paywire, key) / at(results, floor, key)
  const redis = (key: keyof Figures) => ratio(run.results, key, 'paywire', 'floor-guaranteed')
  const pgRatio = (key: keyof Figures) => ratio(run.postgres, key, 'paywire-pg', 'floor-guaranteed-pg')
  const flowsGoal = run.node.startsWith('v20.') ? 0.75 : 0.85
  const rows: Array<[string, string, number, boolean]> = [
    ['Redis: flows per second', `≥ ${flowsGoal} ×`, redis('flowsPerSecond'), redis('flowsPerSecond') >= flowsGoal],
    ['Redis: server CPU per flow', '≤ 1.2 ×', redis('serverCpuMsPerFlow'), redis('serverCpuMsPerFlow') <= 1.2],
    ['Redis: commands per flow', '≤ 1.2 ×', redis('redisCommandsPerFlow'), redis('redisCommandsPerFlow') <= 1.2],
    ['Redis: p99 latency per flow', '≤ 1.3 ×', redis('p99Ms'), redis('p99Ms') <= 1.3],
    ['PostgreSQL: flows per second', '≥ 0.75 ×', pgRatio('flowsPerSecond'), pgRatio('flowsPerSecond') >= 0.75],
    ['PostgreSQL: transactions per flow', '≤ 1.25 ×', pgRatio('pgTransactionsPerFlow'), pgRatio('pgTransactionsPerFlow') <= 1.25],
    ['PostgreSQL: p99 latency per flow', '≤ 1.3 ×', pgRatio('p99Ms'), pgRatio('p99Ms') <= 1.3]
  ]
  return ['| concurrency 32, against the guaranteed floor | goal | Paywire / guaranteed | |', '|---|---|---:|---|',
    ...rows.map(([label, goal, value, met]) => `| ${label} | ${goal} | ${fixed(value, 2)} | ${Number.isFinite(value) ? (met ? 'met' : '**not met**') : ''} |`)].join('\n')
}

export function report (run: NodeRun, levels: number[]): string {
  return `### Node ${run.node}\n\nIssue 23's goals:\n\n${targetsTable(run)}\n\nRedis (tokens, payments and claims):\n\n${redisTable(run.results, levels)}\n\n` +
    `PostgreSQL (\`DATABASE_URL\`: records, tokens and claims in one schema):\n\n${pgTable(run.postgres, levels)}\n\n` +
    `Memory:\n\n${memoryTable(run)}\n\n${libraryTable(run.library)}`
}
