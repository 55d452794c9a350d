import { runSuite } from './run-suite.ts'

await runSuite('core-plugin')
