import { runDoctor } from '../scripts/doctor/doctor.ts'
import { CliUsageError, parseCommandArguments, runCommand } from './arguments.ts'
import type { CliIo } from './commands.ts'

/** `paywire doctor <module>[#export] [--strict]`: flags checked here (with did-you-mean), the report by the doctor. */
export async function doctor (args: readonly string[], io: CliIo): Promise<number | undefined> {
  return await runCommand(io, async () => {
    const { values, positionals } = parseCommandArguments('doctor', args, { strict: { type: 'boolean' } }, true)
    if (values.help !== true && positionals.length !== 1) {
      throw new CliUsageError(`paywire doctor: ${positionals.length === 0 ? 'which module? Name the file that builds your Paywire setup: paywire doctor app.js' : `one module at a time, got ${positionals.length}`} (see paywire doctor --help)`)
    }
    // The report lists the deprecations; the same warnings on stderr would only repeat it.
    process.noDeprecation = true
    return await runDoctor([...positionals, ...values.strict === true ? ['--strict'] : [], ...values.help === true ? ['--help'] : []], io)
  })
}
