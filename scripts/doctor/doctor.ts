import { diagnosePaywire, type GatewayDiagnosis } from '../../plugins/core/engine/index.ts'
import { loadPaywire } from './load.ts'

export const EXIT_OK = 0
/** --strict: something would break in the next major version. */
export const EXIT_DEPRECATED = 1
/** A gateway cannot be built or an action cannot get its API (always), or the setup could not be loaded. */
export const EXIT_ERRORS = 2

export const USAGE = 'Usage: paywire doctor <module>[#export] [--strict]\n' +
  '  <module>  exports (default, paywire, builder or app) a PaywireBuilder, a Paywire, a Fastify app with the\n' +
  '            paywire plugin, or a function returning one of them; #export picks another export name.\n' +
  '  --strict  exit with 1 when a gateway uses something deprecated (removed in the next major version).\n'

export interface DoctorIo {
  out: (text: string) => void
  err: (text: string) => void
  cwd?: string
}

const HEADER = ['GATEWAY', 'FACTORY', 'STYLE', 'FINDING', 'FIX OR ERROR']

function rows (diagnosis: GatewayDiagnosis): string[][] {
  const lead = [diagnosis.gateway, diagnosis.factory ?? '(gateway object)', diagnosis.style ?? '-']
  const findings = [
    ...diagnosis.deprecations.map((deprecation) => [deprecation.code,
      `${deprecation.deprecated} → ${deprecation.replacement}: ${deprecation.fix} (MIGRATION.md#${deprecation.guide})`]),
    ...diagnosis.errors.map((error) => [error.code, error.message])
  ]
  return findings.length === 0 ? [[...lead, 'ok', '']] : findings.map((finding) => [...lead, ...finding])
}

/** One row per finding; the last column is left unpadded since it is free text. */
export function formatReport (diagnoses: readonly GatewayDiagnosis[]): string {
  const table = [HEADER, ...diagnoses.flatMap(rows)]
  const widths = HEADER.slice(0, -1).map((_, column) => Math.max(...table.map((row) => (row[column] as string).length)))
  const lines = table.map((row) => row.map((cell, column) => column < widths.length ? cell.padEnd(widths[column] as number) : cell).join('  ').trimEnd())
  const deprecated = diagnoses.filter((diagnosis) => diagnosis.deprecations.length > 0).length
  const failed = diagnoses.filter((diagnosis) => diagnosis.errors.length > 0).length
  lines.push('', `${diagnoses.length} gateway(s) checked, ${deprecated} using deprecated APIs (removed in the next major version), ${failed} with errors.`)
  if (deprecated > 0) lines.push('Migrate them with MIGRATION.md; run the doctor with --strict in CI to fail on deprecations.')
  return `${lines.join('\n')}\n`
}

export function exitCode (diagnoses: readonly GatewayDiagnosis[], strict: boolean): number {
  if (diagnoses.some((diagnosis) => diagnosis.errors.length > 0)) return EXIT_ERRORS
  if (strict && diagnoses.some((diagnosis) => diagnosis.deprecations.length > 0)) return EXIT_DEPRECATED
  return EXIT_OK
}

/** The doctor CLI without the process: parses `argv`, loads the setup, prints the report, returns the exit code. */
export async function runDoctor (argv: readonly string[], io: DoctorIo): Promise<number> {
  const strict = argv.includes('--strict')
  const modules = argv.filter((arg) => !arg.startsWith('-'))
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(USAGE)
    return EXIT_OK
  }
  const unknown = argv.filter((arg) => arg.startsWith('-') && arg !== '--strict')
  if (modules.length !== 1 || unknown.length > 0) {
    io.err(USAGE)
    return EXIT_ERRORS
  }
  let loaded
  try {
    loaded = await loadPaywire(modules[0] as string, io.cwd)
  } catch (error) {
    io.err(`Cannot load the Paywire setup from ${modules[0]}: ${error instanceof Error ? error.message : String(error)}\n`)
    // Node loads TypeScript only with a loader; tsx, which the README's shop runs with, is one.
    if ((error as { code?: unknown }).code === 'ERR_UNKNOWN_FILE_EXTENSION') {
      io.err(`To check a TypeScript setup, load it through tsx: NODE_OPTIONS=--import=tsx npx paywire doctor ${modules[0] as string}\n`)
    }
    return EXIT_ERRORS
  }
  try {
    const diagnoses = diagnosePaywire(loaded.paywire)
    io.out(formatReport(diagnoses))
    return exitCode(diagnoses, strict)
  } finally {
    await loaded.close()
  }
}
