import { runSuite } from './run-suite.ts'

await runSuite('paypal-rest')
