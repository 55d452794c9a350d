import { runDoctor } from '../scripts/doctor/doctor.ts'
import type { CliIo } from './commands.ts'

/** `paywire doctor <module>[#export] [--strict]`. */
export async function doctor (args: readonly string[], io: CliIo): Promise<number> {
  // The report lists the deprecations; the same warnings on stderr would only repeat it.
  process.noDeprecation = true
  return await runDoctor(args, io)
}
