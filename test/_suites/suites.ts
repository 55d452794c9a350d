// Test files that run together, one process per suite instead of one per file.
//
// Starting a test process costs 2–4 CPU-seconds before the first assertion (Node, tap's process
// tracking, the TypeScript loader, then Fastify, undici, awilix and the engine, compiled again in
// every process); most unit test files then run for a fraction of that. A suite imports its files
// one after another into one process, so their subtests run in order on tap's root test, exactly
// as they would alone: every assertion is kept, and a failure still names its file and line.
//
// A suite is a folder of the test tree. `.taprc` excludes the suite's files from tap's own file
// list (its `exclude` patterns must match `members` below: test/package/test-files.test.ts checks
// that every test file runs exactly once). A file that needs a process of its own — it listens
// for process-wide warnings that other files trigger, or changes process-wide state — is listed
// in `alone`, and tap runs it on its own.
//
// Run one file alone as always (`npx tap test/plugins/core/engine/kernel/executor.test.ts`), or
// one suite (`npx tap test/_suites/engine.test.ts`).

export interface Suite {
  /**
   * The folder, from the repository root, whose `*.test.ts` files run together: subfolders
   * included, but for a subfolder that is a suite of its own.
   */
  readonly folder: string
  /** File names (relative to the folder) that keep a process of their own. */
  readonly alone?: readonly string[]
}

export const SUITES = {
  engine: { folder: 'test/plugins/core/engine', alone: ['legacy/deprecations.test.ts'] },
  'core-plugin': { folder: 'test/plugins/core', alone: ['plugin.test.ts'] },
  graphql: { folder: 'test/plugins/graphql', alone: ['limits.test.ts'] },
  redis: { folder: 'test/plugins/redis', alone: ['plugin.test.ts'] },
  postgres: { folder: 'test/plugins/postgres', alone: ['plugin.test.ts'] },
  'paypal-simulator': { folder: 'test/simulators/paypal' },
  'stripe-simulator': { folder: 'test/simulators/stripe' },
  'paypal-shared': { folder: 'test/gateways/paypal-shared', alone: ['client.test.ts'] },
  'paypal-rest': { folder: 'test/gateways/paypal-rest' },
  'paypal-rest-flows': { folder: 'test/gateways/paypal-rest/flows', alone: ['fault-storm.test.ts', 'traces-flow.test.ts'] },
  'paypal-checkout': { folder: 'test/gateways/paypal-checkout' },
  offline: { folder: 'test/gateways/offline' },
  stripe: { folder: 'test/gateways/stripe' },
  'stripe-flows': { folder: 'test/gateways/stripe/flows', alone: ['fault-storm.test.ts', 'observability.test.ts'] },
  demo: { folder: 'test/demo', alone: ['environment.test.ts'] }
} as const satisfies Record<string, Suite>

export type SuiteName = keyof typeof SUITES
